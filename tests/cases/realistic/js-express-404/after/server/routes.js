const express = require('express');
const router = express.Router();

router.get('/health', (req, res) => {
  res.json({ ok: true });
});

router.get('/items/:id', async (req, res) => {
  const item = await db.find(req.params.id);
  if (!item) {
    return res.status(404).json({ error: 'not found' });
  }
  res.json(item);
});

module.exports = router;
