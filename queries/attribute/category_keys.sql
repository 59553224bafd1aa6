-- What the category rules look at, once per distinct combination in the bill (table charge_categories).
-- Grain: provider x service x usage type x charge category x FOCUS ServiceCategory. No parameters.
SELECT DISTINCT provider, service_name, usage_type, charge_category, service_category FROM charges
