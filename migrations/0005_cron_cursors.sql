-- Where each scheduled task stopped (lib/cron/cursor.ts): the next run, on any instance, resumes there.

CREATE TABLE cron_cursors (
  task text PRIMARY KEY CHECK (length(task) BETWEEN 1 AND 64),
  -- Task-defined position (an id, a timestamp and id); NULL once the task reached the end of its list.
  cursor text NULL CHECK (cursor IS NULL OR length(cursor) <= 512),
  updated_at timestamptz NOT NULL DEFAULT now()
);
