-- Spark's body of the macro charge_slice: pmod, since Spark's hash is a signed integer and `%` keeps the
-- sign of a negative one. Grain: one value. No parameters (arguments only).
(charge_id, slices) = pmod(hash(charge_id), slices)
