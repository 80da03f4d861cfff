-- Version 12 is reserved for the sessions migration (session inventory, idle timeout, retention) that lands beside
-- 0013_members.sql; this empty placeholder keeps the sequence without a gap (ops/migrations-from-disk.ts refuses one)
-- until it does, and is replaced by it then. It changes nothing.
SELECT 1;
