-- Forget the resolved tag sets before they are resolved again with the current label config.
-- Grain: tag set. No parameters.
DELETE FROM label_sets
