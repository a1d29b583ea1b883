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
CREATE TRIGGER movies_out_of_order_on_update AFTER UPDATE OF id, title, title_folded ON movies
BEGIN
    UPDATE totals SET movies_in_order = 0;
END;
CREATE TRIGGER authors_out_of_order_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE totals SET authors_in_order = 0;
END;
CREATE TRIGGER authors_out_of_order_on_update AFTER UPDATE OF
    id, first_name, last_name, first_name_folded, last_name_folded ON authors
BEGIN
    UPDATE totals SET authors_in_order = 0;
END;
