-- Publishing an upload (scan → thumbnail → publish, one chain of jobs): what the scan found and where the image
-- went public. Nullable, so images uploaded before stay as they are.
ALTER TABLE images ADD COLUMN scan TEXT;
ALTER TABLE images ADD COLUMN published_url TEXT;
