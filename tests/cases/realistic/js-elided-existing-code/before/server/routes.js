const express = require('express');
const router = express.Router();

router.get('/health', (req, res) => {
  res.json({ ok: true });
});

router.get('/items/:id', async (req, res) => {
  const item = await db.find(req.params.id);
  res.json(item);
});

module.exports = router;
