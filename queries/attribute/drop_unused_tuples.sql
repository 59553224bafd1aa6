-- Drop the allocation tuples no reference names any more. Grain: tuple. No parameters.
DELETE FROM allocation_tuples WHERE tuple_id NOT IN (SELECT DISTINCT tuple_id FROM allocation_refs)
