"""The room's economy: the chips ledger (``ledger``), its audit (``audit``), rooms and stakes."""
