-- Replaced charges get new ids, so their allocations must be made again even for the same content:
-- forget attribution's input fingerprint. Grain: none. Parameters: none.
DELETE FROM step_inputs WHERE step = 'attribution'
