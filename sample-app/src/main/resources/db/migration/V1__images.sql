CREATE TABLE images (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL,
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    tags        TEXT,
    caption     TEXT,
    thumbnail   TEXT,
    uploaded_at INTEGER NOT NULL
);
