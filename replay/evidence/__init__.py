"""Evidence: verification (re-adjudicating a log from its recorded inputs), exports, seals and
keys, fair dice, receipts and the tournament's Merkle tree. It never imports the odds."""
