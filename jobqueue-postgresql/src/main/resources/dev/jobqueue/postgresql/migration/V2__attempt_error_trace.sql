-- The stack trace of a failed attempt (bounded by the worker to a few kilobytes), kept with the attempt so the
-- endpoint can show why a run failed; error_detail stays the short summary. NULL for attempts written before.
ALTER TABLE ${prefix}job_attempts ADD COLUMN error_trace text;
