-- Every distinct tag set of the bill and of the inventory, for the label scheme to resolve (table
-- label_sets). Grain: distinct tags JSON. No parameters.
SELECT DISTINCT tags FROM charges
UNION
SELECT DISTINCT tags FROM resources
