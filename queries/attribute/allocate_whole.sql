-- The charges sent to the exact split that turned out to have no shares (no run of their class overlaps
-- them) go whole to their single allocation, as rules 1-3 resolved them: by reference, with the tuple of
-- their share 0. Grain: charge. Parameters: $slice of $slices, the part of `resolved` that
-- `attribute_windows` split last.
INSERT INTO allocation_refs
SELECT r.charge_id, 1, r.tuple_id
FROM resolved r
WHERE charge_slice(r.charge_id, $slices) = $slice
  AND NOT EXISTS (SELECT 1 FROM shares s WHERE s.charge_id = r.charge_id)
