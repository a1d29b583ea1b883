-- Whether the movies' rowids follow movies_search's order (title ignoring case, then exact
-- title, then id), and the authors' authors_search's order (last name, then first name, each
-- ignoring case then exact, then id). A load inserts them in that order and sets these; any
-- insert or change of an order key after it clears them (a delete keeps the order). While one is
-- set, the trigram index, which yields its matches in rowid order, yields them in search order
-- too, so a page of matches is read from the index without sorting them.

ALTER TABLE totals ADD COLUMN movies_in_order INTEGER NOT NULL DEFAULT 0;
ALTER TABLE totals ADD COLUMN authors_in_order INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER movies_out_of_order_on_insert AFTER INSERT ON movies
BEGIN
    UPDATE totals SET movies_in_order = 0;
END;
-- Not `UPDATE OF` columns: a rowid can also be changed by hand under its other names (oid,
-- _rowid_), which `UPDATE OF rowid` does not see.
CREATE TRIGGER movies_out_of_order_on_update AFTER UPDATE ON movies
    WHEN NEW.rowid <> OLD.rowid OR NEW.id IS NOT OLD.id OR NEW.title IS NOT OLD.title
        OR NEW.title_folded IS NOT OLD.title_folded
BEGIN
    UPDATE totals SET movies_in_order = 0;
END;
CREATE TRIGGER authors_out_of_order_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE totals SET authors_in_order = 0;
END;
CREATE TRIGGER authors_out_of_order_on_update AFTER UPDATE ON authors
    WHEN NEW.rowid <> OLD.rowid OR NEW.id IS NOT OLD.id
        OR NEW.first_name IS NOT OLD.first_name OR NEW.last_name IS NOT OLD.last_name
        OR NEW.first_name_folded IS NOT OLD.first_name_folded
        OR NEW.last_name_folded IS NOT OLD.last_name_folded
BEGIN
    UPDATE totals SET authors_in_order = 0;
END;
