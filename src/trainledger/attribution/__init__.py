"""Attribution (SPEC §4): each charge split into allocations by label, run window and category."""
