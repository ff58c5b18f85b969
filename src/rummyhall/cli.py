"""The ``rummyhall`` command line: one program, one sub-command per job."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from rummyhall import __version__
from rummyhall.cards import CardError, format_cards, parse, parse_cards
from rummyhall.melds import Arrangement, arrange, get_profile
from rummyhall.shuffle import commitment, deal_order


def _arrangement_json(result: Arrangement) -> dict[str, Any]:
    data: dict[str, Any] = {
        "penalty": result.penalty,
        "declarable": result.declarable,
        "groups": [format_cards(group) for group in result.groups],
        "kinds": [str(kind) for kind in result.kinds],
        "leftover": format_cards(result.leftover),
    }
    if result.discard is not None:
        data["discard"] = str(result.discard)
    if result.two_point_groups is not None:
        data["two_point_groups"] = [format_cards(group) for group in result.two_point_groups]
    return data


def _arrange_text(result: Arrangement) -> str:
    lines = []
    for group, kind in zip(result.groups, result.kinds, strict=True):
        lines.append(f"  {format_cards(group):<28} {kind.replace('_', ' ')}")
    if result.leftover:
        lines.append(f"  {format_cards(result.leftover):<28} unmelded")
    if result.discard is not None:
        lines.append(f"  discard {result.discard}")
    lines.append(
        f"penalty {result.penalty}, " + ("declarable" if result.declarable else "not declarable")
    )
    return "\n".join(lines)


def _batch_line(line: str) -> dict[str, Any]:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": f"not JSON: {exc.msg}"}
    if not isinstance(request, dict):
        return {"error": "each line must be a JSON object"}
    missing = [key for key in ("hand", "joker", "profile") if not isinstance(request.get(key), str)]
    if missing:
        return {"error": "missing or non-string field(s): " + ", ".join(missing)}
    try:
        profile = get_profile(request["profile"])
        hand = parse_cards(request["hand"])
        joker = parse(request["joker"])
    except (CardError, ValueError) as exc:
        return {"error": str(exc)}
    return _arrangement_json(arrange(hand, joker=joker, profile=profile))


def _cmd_arrange(args: argparse.Namespace, out: TextIO) -> int:
    if args.batch:
        for line in sys.stdin:
            if line.strip():
                out.write(json.dumps(_batch_line(line)) + "\n")
        return 0
    if args.hand is None or args.joker is None:
        print("arrange: give a hand and --joker (or --batch)", file=sys.stderr)
        return 2
    try:
        profile = get_profile(args.profile)
        hand = parse_cards(args.hand)
        joker = parse(args.joker)
    except (CardError, ValueError) as exc:
        print(f"arrange: {exc}", file=sys.stderr)
        return 2
    result = arrange(hand, joker=joker, profile=profile)
    out.write(
        (json.dumps(_arrangement_json(result)) if args.json else _arrange_text(result)) + "\n"
    )
    return 0


def _cmd_verify_deal(args: argparse.Namespace, out: TextIO) -> int:
    try:
        seed = bytes.fromhex(args.server_seed)
    except ValueError:
        print("verify-deal: --server-seed must be hexadecimal", file=sys.stderr)
        return 2
    try:
        order = deal_order(seed, args.client_seed, args.nonce, decks=args.decks, jokers=args.jokers)
    except ValueError as exc:
        print(f"verify-deal: {exc}", file=sys.stderr)
        return 2
    out.write(format_cards(order) + "\n")
    actual = commitment(seed)
    out.write(f"commitment {actual}\n")
    if args.commitment is not None:
        if actual != args.commitment.strip().lower():
            out.write("MISMATCH: the server seed does not match the published commitment\n")
            return 1
        out.write("commitment matches\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummyhall", description="Rummy Hall card room")
    parser.add_argument("--version", action="version", version=f"rummyhall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("arrange", help="best arrangement and penalty of a hand")
    p.add_argument("hand", nargs="?", help='cards, e.g. "AS 2S 3S 7H 7D 7C ..."')
    p.add_argument("--joker", help="the cut card, e.g. 7D (JK: aces are wild)")
    p.add_argument(
        "--profile",
        default="indian13/classic",
        help="indian13/classic, indian13/vengala or marriage21",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--batch", action="store_true", help="read JSON lines from stdin, write one result per line"
    )
    p.set_defaults(run=_cmd_arrange)

    p = sub.add_parser(
        "verify-deal", help="recompute a provably-fair deal and check its commitment"
    )
    p.add_argument("--server-seed", required=True, help="the revealed server seed (hex)")
    p.add_argument("--client-seed", required=True, help="the client seed (text)")
    p.add_argument("--nonce", type=int, required=True, help="the deal's nonce")
    p.add_argument("--decks", type=int, default=2, help="packs of 52 in the shoe")
    p.add_argument("--jokers", type=int, default=1, help="printed jokers per pack")
    p.add_argument("--commitment", help="the SHA-256 commitment published before the deal (hex)")
    p.set_defaults(run=_cmd_verify_deal)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.run(args, sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
