-- Forget the resolved cost categories before they are resolved again with the current rules.
-- Grain: provider x service x usage type. No parameters.
DELETE FROM charge_categories
