"""Several server nodes sharing one database and one Redis (issue 21; docs/cluster.md).

Exists now: table ownership leases with fencing tokens (:mod:`.lease`), and the database side
of the fence (:mod:`rummyhall.store.fences`). Nothing here is wired into the running server
yet: one ``rummyhall serve`` with SQLite behaves exactly as before.
"""
