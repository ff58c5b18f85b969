"""Several server nodes sharing one database and one Redis (issue 21; docs/cluster.md).

Table ownership leases with fencing tokens (:mod:`.lease`; the database side of the fence is
:mod:`rummyhall.store.fences`), this process as one node holding and handing on leases
(:mod:`.node`, driven by the hub), the relay to other nodes' tables (:mod:`.relay`), the
shared lobby and seats (:mod:`.directory`), Redis pipelines shielded from cancellation
(:mod:`.shielded`), and SIGTERM turned into a drain (:mod:`.sigterm`). One
``rummyhall serve`` without ``--redis`` uses none of it and behaves exactly as before.
"""
