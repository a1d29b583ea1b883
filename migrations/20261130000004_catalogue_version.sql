-- Which version of the titles and names the database holds. Every insert, delete or change of a
-- movie or an author moves it on (a load, which drops these triggers, moves it itself), so a
-- server may keep what it has worked out about the titles and names (how many contain a search
-- term) for as long as it reads the same version. Reviews do not move it.

ALTER TABLE totals ADD COLUMN catalogue INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER movies_catalogued_on_insert AFTER INSERT ON movies
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;
CREATE TRIGGER movies_catalogued_on_delete AFTER DELETE ON movies
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;
CREATE TRIGGER movies_catalogued_on_update AFTER UPDATE OF title, title_folded ON movies
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;
CREATE TRIGGER authors_catalogued_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;
CREATE TRIGGER authors_catalogued_on_delete AFTER DELETE ON authors
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;
CREATE TRIGGER authors_catalogued_on_update AFTER UPDATE OF
    first_name, last_name, first_name_folded, last_name_folded, full_name_folded ON authors
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

-- A random start rather than 0, so that two databases never share a version by chance (see
-- the load in server/src/store/load.rs, which does the same).
UPDATE totals SET catalogue = random();
