SELECT id,    name
FROM   users
WHERE active = 1 AND admin = 0;
