"""What leaves trainledger: export files, text tables, post-mortems, alert deliveries."""
