"""The ``rummyhall`` command line: one program, one sub-command per job."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from rummyhall import __version__, catalog
from rummyhall.cards import Card, CardError, format_cards, parse, parse_cards, parse_physical
from rummyhall.catalog import CliOption, GamePlugin, PlayRequest
from rummyhall.games.protocol import (
    HOUSE,
    JSON,
    Deal,
    Event,
    Game,
    GameError,
    RefillCheck,
    game_class,
    notation,
    refill_checks,
    replay,
    same_cards,
)
from rummyhall.games.text import GameText
from rummyhall.melds import DEFAULT_PROFILE, PROFILES, Arrangement, arrange, get_profile
from rummyhall.shuffle import commitment, deal_order, refill_order


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


def _refuse(command: str, problem: object) -> int:
    """Say on standard error what is wrong with the command line; the exit status, 2."""
    print(f"{command}: {problem}", file=sys.stderr)
    return 2


def _cmd_arrange(args: argparse.Namespace, out: TextIO) -> int:
    if args.batch:
        for line in sys.stdin:
            if line.strip():
                out.write(json.dumps(_batch_line(line)) + "\n")
        return 0
    if args.hand is None or args.joker is None:
        return _refuse("arrange", "give a hand and --joker (or --batch)")
    try:
        profile = get_profile(args.profile)
        hand = parse_cards(args.hand)
        joker = parse(args.joker)
    except (CardError, ValueError) as exc:
        return _refuse("arrange", exc)
    result = arrange(hand, joker=joker, profile=profile)
    out.write(
        (json.dumps(_arrangement_json(result)) if args.json else _arrange_text(result)) + "\n"
    )
    return 0


def _physical_cards(text: str) -> list[Card]:
    return [parse_physical(token) for token in text.split()]


def _cmd_verify_deal(args: argparse.Namespace, out: TextIO) -> int:
    try:
        seed = bytes.fromhex(args.server_seed)
    except ValueError:
        return _refuse("verify-deal", "--server-seed must be hexadecimal")
    if args.refill is None and (args.source is not None or args.cards is not None):
        return _refuse("verify-deal", "--from and --cards go with --refill")
    if args.refill is not None and args.source is None:
        return _refuse("verify-deal", "--refill needs --from: the cards the refill shuffled")
    try:
        if args.refill is None:
            order = deal_order(
                seed, args.client_seed, args.nonce, decks=args.decks, jokers=args.jokers
            )
            recorded = None
        else:
            under = _physical_cards(args.source)
            recorded = None if args.cards is None else _physical_cards(args.cards)
            order = refill_order(seed, args.client_seed, args.nonce, args.refill, under)
    except (ValueError, CardError) as exc:
        return _refuse("verify-deal", exc)
    # A refill keeps the copy numbers it was given (a record names physical cards).
    shown = format_cards(order) if args.refill is None else " ".join(c.physical for c in order)
    out.write(shown + "\n")
    actual = commitment(seed)
    out.write(f"commitment {actual}\n")
    status = 0
    if args.commitment is not None:
        if actual != args.commitment.strip().lower():
            out.write("MISMATCH: the server seed does not match the published commitment\n")
            status = 1
        else:
            out.write("commitment matches\n")
    if recorded is not None:
        if same_cards(recorded, order):
            out.write(f"refill {args.refill} matches\n")
        else:
            out.write(
                f"MISMATCH: --cards is not the order refill {args.refill} of this deal gives "
                "the cards of --from\n"
            )
            status = 1
    return status


class RecordError(Exception):
    """A record that cannot be read or that the rules refuse (exit status 2)."""


def load_record(path: str) -> JSON:
    """Read a record file and check its shape (docs/records.md); RecordError says what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{path} is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise RecordError(f"{path}: a record is a JSON object")
    if not isinstance(data.get("game"), str):
        raise RecordError(f"{path}: the record names no game")
    if not isinstance(data.get("config"), dict):
        raise RecordError(f"{path}: the record has no config object")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise RecordError(f"{path}: the record has no list of actions")
    for index, entry in enumerate(actions, 1):
        ok = (
            isinstance(entry, dict)
            and _is_int(entry.get("seat"))
            and isinstance(entry.get("action"), str)
            and _is_int(entry.get("at"))
            and isinstance(entry.get("deal", {}), dict)
        )
        if not ok:
            raise RecordError(
                f"{path}: action {index} must be an object with an integer seat, an action text "
                "and an integer time at"
            )
    if "result" in data and not isinstance(data["result"], dict):
        raise RecordError(f"{path}: the result must be an object")
    return data


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_RECORD_ERRORS = (GameError, ValueError, KeyError, TypeError)
"""What a record the rules (or the config or a deal) refuse raises while it is replayed."""


def _new_game(record: Mapping[str, Any]) -> Game:
    try:
        return game_class(record["game"]).create(record["config"])
    except _RECORD_ERRORS as exc:
        raise RecordError(f"the record's game or config is refused: {exc}") from None


def _step(game: Game, index: int, entry: Mapping[str, Any]) -> list[Event]:
    """Apply one record entry; RecordError names the entry the rules refuse."""
    try:
        deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
    except _RECORD_ERRORS as exc:
        why = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
        raise RecordError(f"action {index} ({notation(entry)}): bad deal data: {why}") from None
    try:
        return game.apply(int(entry["seat"]), str(entry["action"]), int(entry["at"]), deal=deal)
    except GameError as exc:
        raise RecordError(
            f"action {index} ({notation(entry)}) is refused by the rules: {exc.code}: {exc.message}"
        ) from None
    except _RECORD_ERRORS as exc:
        raise RecordError(f"action {index} ({notation(entry)}) cannot be replayed: {exc}") from None


def replay_record(record: Mapping[str, Any]) -> Game:
    """:func:`rummyhall.games.protocol.replay`, with a refusal turned into a RecordError that
    names the action."""
    try:
        return replay(record)
    except _RECORD_ERRORS:
        game = _new_game(record)
        for index, entry in enumerate(record["actions"], 1):
            _step(game, index, entry)
        raise RecordError("the record cannot be replayed") from None  # pragma: no cover


def _fair_deals(record: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any], bool]]:
    """(action number, seeds, does the commitment match the revealed seed) of each fair deal."""
    found: list[tuple[int, Mapping[str, Any], bool]] = []
    for index, entry in enumerate(record["actions"], 1):
        deal = entry.get("deal")
        if isinstance(deal, dict) and "server_seed" in deal:
            try:
                ok = (
                    commitment(bytes.fromhex(str(deal["server_seed"])))
                    == str(deal.get("commitment", "")).lower()
                )
            except ValueError:
                ok = False
            found.append((index, deal, ok))
    return found


def _verify_command(deal: Mapping[str, Any], refill: Mapping[str, Any] | None = None) -> str:
    """The ``verify-deal`` line that checks a fair deal or, given its entry, one of its refills."""
    if refill is None:
        what = f"--decks {deal['decks']} --jokers {deal['jokers']}"
    else:
        what = (
            f"--refill {refill['refill']} --from {shlex.quote(str(refill['from']))} "
            f"--cards {shlex.quote(str(refill['cards']))}"
        )
    return (
        f"rummyhall verify-deal --server-seed {deal['server_seed']} "
        f"--client-seed {shlex.quote(str(deal['client_seed']))} --nonce {deal['nonce']} "
        f"{what} --commitment {deal.get('commitment')}"
    )


def _refill_name(check: RefillCheck) -> str:
    return f"refill {check.number} of its deal (action {check.action})"


def _refill_lines(checks: Sequence[RefillCheck]) -> tuple[list[str], int]:
    """What ``replay`` says about the refills of the closed deck, and its exit status."""
    checked = [check for check in checks if check.checkable]
    lines = [
        f"refills: {len(checks)} refill(s) of the closed deck; {len(checked)} recomputed from "
        "their deal's seeds"
    ]
    status = 0
    for check in checks:
        if not check.checkable:
            lines.append(f"note: {_refill_name(check)} {check.problem}")
        elif not check.ok:
            lines.append(f"MISMATCH: {_refill_name(check)}: {check.problem}")
            status = 1
    if checked and status == 0:
        lines.append("every refill is the order its deal's seeds give")
    return lines, status


def _config_line(record: Mapping[str, Any], game: Game, text: GameText[Any]) -> str:
    parts = [str(record["game"]), *text.config_parts(record["config"], game.seats)]
    parts.append(f"{len(record['actions'])} actions")
    return " · ".join(parts)


def _result_lines(game: Game, text: GameText[Any]) -> list[str]:
    """The game's deals (its renderer's), then how it ended, its points, winners and postings."""
    lines = text.history_lines(game)
    result = game.result
    if result is None:
        waiting = ", ".join(f"p{a.seat} ({a.kind})" for a in game.awaited())
        lines.append(f"not over: the record stops while the game waits for {waiting}")
        return lines
    lines += text.ending_lines(result)
    lines.append(
        "points: " + " · ".join(f"p{seat} {pts}" for seat, pts in sorted(result.points.items()))
    )
    lines.append("winner(s): " + ", ".join(f"p{seat}" for seat in result.winners))
    postings = " · ".join(f"{p.account} {p.amount:+d}" for p in result.postings)
    lines.append("chips: " + (postings or "none"))
    return lines


def _state_note(game: Game, text: GameText[Any]) -> str:
    """The public state after a move (its renderer's: open card, closed deck...), who is
    awaited."""
    parts = text.state_parts(game.view(None))
    awaited = [a for a in game.awaited() if a.seat != HOUSE]
    if awaited:
        kinds = {a.kind for a in awaited}
        who = " ".join(f"p{a.seat}" for a in awaited)
        parts.append(f"{'/'.join(sorted(kinds))}: {who}")
    return " · ".join(parts)


def _verbose_lines(record: Mapping[str, Any], text: GameText[Any]) -> list[str]:
    game = _new_game(record)
    actions: Sequence[Mapping[str, Any]] = record["actions"]
    origin = int(actions[0]["at"]) if actions else 0
    lines: list[str] = []
    seeds: Mapping[str, Any] | None = None
    for index, entry in enumerate(actions, 1):
        new_deal = game.view(None).get("phase") in ("start", "between")
        events = _step(game, index, entry)
        deal = entry.get("deal", {})
        if "server_seed" in deal:
            seeds = deal
        elif new_deal:
            seeds = None
        seconds = (int(entry["at"]) - origin) / 1000
        line = f"{seconds:8.1f}s {notation(entry)}"
        notes = [note for event in events if (note := text.note(event)) is not None]
        if notes:
            line += "  (" + "; ".join(notes) + ")"
        if int(entry["seat"]) == HOUSE and new_deal:
            lines.append("")
            lines.append(line)
            fair = deal if "server_seed" in deal else None
            check = None if fair is None else _verify_command(fair)
            lines += text.deal_lines(game, events, fair, check)
            continue
        state = _state_note(game, text)
        lines.append(f"{line}  [{state}]" if state and not game.over else line)
        if "refill" in deal and seeds is not None:
            lines.append(f"{' ' * 10}refill {deal['refill']} from the deal's seeds")
            lines.append(f"{' ' * 10}      check: {_verify_command(seeds, deal)}")
        lines += text.after_lines(events)
    return lines


def _cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    try:
        record = load_record(args.record)
    except RecordError as exc:
        return _refuse("replay", exc)
    try:
        game = replay_record(record)
        plugin = catalog.get(game.name)
        moves = _verbose_lines(record, plugin.renderer()) if args.verbose else []
    except RecordError as exc:
        # A refill that is not what the seeds give often makes a later draw impossible: say so.
        try:
            refills = refill_checks(record, partial=True)
        except _RECORD_ERRORS:
            refills = []
        for check in refills:
            if check.checkable and not check.ok:
                print(f"replay: MISMATCH: {_refill_name(check)}: {check.problem}", file=sys.stderr)
        return _refuse("replay", exc)
    text = plugin.renderer()
    out.write(_config_line(record, game, text) + "\n")
    for line in moves:
        out.write(line + "\n")
    if moves:
        out.write("\n")
    for line in _result_lines(game, text):
        out.write(line + "\n")
    status = 0
    fair = _fair_deals(record)
    if fair:
        bad = [index for index, _, ok in fair if not ok]
        out.write(
            f"provably fair: {len(fair)} deal(s) stored as seeds; `rummyhall verify-deal` "
            "recomputes each deck" + ("" if args.verbose else " (--verbose lists the seeds)") + "\n"
        )
        if bad:
            numbers = ", ".join(str(index) for index in bad)
            out.write(
                f"MISMATCH: the server seed of action(s) {numbers} does not match its commitment\n"
            )
            status = 1
        else:
            out.write("every commitment matches its revealed server seed\n")
    try:
        refills = refill_checks(record)
    except _RECORD_ERRORS as exc:  # pragma: no cover - the replay above refused it already
        return _refuse("replay", f"the refills cannot be checked: {exc}")
    if refills:
        lines, refill_status = _refill_lines(refills)
        for line in lines:
            out.write(line + "\n")
        status = max(status, refill_status)
    stored = record.get("result")
    if stored is not None:
        replayed = None if game.result is None else json.loads(json.dumps(game.result.to_json()))
        if replayed != stored:
            out.write("MISMATCH: the result stored in the record differs from the replay\n")
            status = 1
    return status


def _cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    """``rummyhall play GAME``: the game's terminal table (its catalog entry's), given what every
    game takes and the game's own options, checked before the table opens."""
    plugin = catalog.get(args.game)
    refused = _foreign_options(plugin, args)
    if refused:
        return _refuse("play", refused)
    request = PlayRequest(
        players=args.players,
        seed=args.seed,
        name=args.name,
        record=None if args.record is None else Path(args.record),
        client_seed=args.client_seed,
        options={option.dest: getattr(args, option.dest) for option in plugin.play_options},
    )
    try:
        start = plugin.play_entry()(request, out)
    except ValueError as exc:
        return _refuse("play", exc)
    return start()


def _foreign_options(plugin: GamePlugin, args: argparse.Namespace) -> str | None:
    """What to say when ``play`` was given options of other games only (None: nothing): each
    such game's options, named."""
    own = {option.dest for option in plugin.play_options}
    flags: list[str] = []
    clauses: list[str] = []
    for other in catalog.games():
        theirs = [option for option in other.play_options if option.dest not in own]
        if other is plugin or not any(getattr(args, o.dest) is not None for o in theirs):
            continue
        named = [option.flags[0] for option in theirs]
        flags += [flag for flag in named if flag not in flags]
        verb = "are" if len(named) > 1 else "is"
        clauses.append(f"{' and '.join(named)} {verb} for {other.name}")
    if not clauses:
        return None
    return f"{plugin.title} has no {' or '.join(flags)} ({'; '.join(clauses)})"


def _cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    from rummyhall.sim import simulate

    try:
        report = simulate(
            game=args.game,
            profile=args.profile,
            players=args.players,
            deals=args.deals,
            seed=args.seed,
            mode=args.mode,
            checks=not args.no_checks,
        )
    except ValueError as exc:
        return _refuse("simulate", exc)
    if args.json:
        out.write(json.dumps(report.to_json(), indent=2) + "\n")
    else:
        out.write(report.summary().rstrip("\n") + "\n")
    return 1 if report.violations else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummyhall", description="Rummy Hall card room")
    parser.add_argument("--version", action="version", version=f"rummyhall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("arrange", help="best arrangement and penalty of a hand")
    p.add_argument("hand", nargs="?", help='cards, e.g. "AS 2S 3S 7H 7D 7C ..."')
    p.add_argument("--joker", help="the cut card, e.g. 7D (JK: aces are wild)")
    profiles = list(PROFILES)
    p.add_argument(
        "--profile",
        default=DEFAULT_PROFILE.name,
        help=f"{', '.join(profiles[:-1])} or {profiles[-1]}",
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
    p.add_argument(
        "--refill",
        type=int,
        metavar="R",
        help="recompute refill R (1, 2, ...) of the deal's closed deck instead of its deck",
    )
    p.add_argument(
        "--from",
        dest="source",
        metavar="CARDS",
        help="with --refill: the cards under the open pile's top card, bottom first "
        '(the record\'s "from")',
    )
    p.add_argument(
        "--cards",
        metavar="CARDS",
        help='with --refill: the new closed deck as recorded, top first (the record\'s "cards"); '
        "compared with the recomputed one",
    )
    p.set_defaults(run=_cmd_verify_deal)

    p = sub.add_parser(
        "replay", help="replay a game record: the result, or the whole game move by move"
    )
    p.add_argument("record", help="a record file (JSON, docs/records.md)")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="print every action with the public state"
    )
    p.set_defaults(run=_cmd_replay)

    p = sub.add_parser("play", help="play at the terminal against bots (you are seat 1)")
    p.add_argument("game", choices=catalog.names(), help="the game")
    p.add_argument("--players", type=int, default=4, help="players at the table, you included")
    _add_game_options(p)
    p.add_argument("--seed", type=int, default=0, help="the bots' seed")
    p.add_argument("--name", default="You", help="your name at the table")
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write the game record here at the end (in a session of games, game N to FILE-N)",
    )
    p.add_argument("--client-seed", help="your client seed for the provably-fair deals")
    p.set_defaults(run=_cmd_play)

    p = sub.add_parser(
        "simulate", help="bots play each other: speed, results and invariants checked"
    )
    names = catalog.names()
    p.add_argument(
        "--game",
        default=catalog.default().name,
        help=f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0],
    )
    profiled = [plugin for plugin in catalog.games() if plugin.profiles]
    p.add_argument(
        "--profile",
        help="; ".join(f"{g.name}: {' or '.join(g.profiles)} (first: default)" for g in profiled)
        or "unused",
    )
    p.add_argument("--players", type=int, default=4)
    p.add_argument(
        "--deals", "--games", dest="deals", type=int, default=500, help="deals (games) to play"
    )
    p.add_argument("--seed", type=int, default=1)
    moded = [plugin for plugin in catalog.games() if plugin.modes]
    p.add_argument(
        "--mode",
        choices=sorted({mode for plugin in moded for mode in plugin.modes}) or None,
        default="points",
        help="; ".join(f"{g.name}: {', '.join(g.modes)} (first: default)" for g in moded)
        or "unused",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--no-checks", action="store_true", help="skip the per-action invariant checks (speed)"
    )
    p.set_defaults(run=_cmd_simulate)

    _add_server_commands(sub)
    _add_audit_command(sub)
    return parser


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    """Every game's own ``play`` options (:attr:`~rummyhall.catalog.GamePlugin.play_options`),
    each once; the help says which games take it."""
    taken: dict[str, list[str]] = {}
    options: dict[str, CliOption] = {}
    for plugin in catalog.games():
        for option in plugin.play_options:
            if option.dest in options and options[option.dest] != option:
                raise ValueError(f"two games define {option.flags[0]} differently")
            options[option.dest] = option
            taken.setdefault(option.dest, []).append(plugin.name)
    for dest, option in options.items():
        extra: dict[str, Any] = {} if option.type is None else {"type": option.type}
        parser.add_argument(
            *option.flags,
            dest=dest,
            choices=option.choices,
            help=f"{', '.join(taken[dest])}: {option.help}",
            **extra,
        )


def _add_audit_command(sub: Any) -> None:
    from rummyhall.store.database import DEFAULT_DATA_DIR

    p = sub.add_parser("audit", help="check every invariant of the chips ledger")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--database", help="database URL (default: SQLite in the data folder)")
    where.add_argument(
        "--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="the server's data folder"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    flows = p.add_argument_group("chip flows (--flows: who paid whom, instead of the audit)")
    flows.add_argument(
        "--flows",
        action="store_true",
        help="list the largest one-way net flows of chips between pairs of accounts",
    )
    flows.add_argument("--top", type=int, default=20, help="how many pairs (default 20)")
    flows.add_argument(
        "--since",
        help="only games settled since: a UTC date or time (2026-11-01, 2026-11-01T18:00) "
        "or a span back from now (7d, 12h, 30m)",
    )
    flows.add_argument(
        "--currency",
        default="chips",
        choices=["chips", "practice"],
        help="real chips (default) or practice chips",
    )
    p.set_defaults(run=_cmd_audit)


def _cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    from rummyhall.economy.audit import audit_command
    from rummyhall.economy.flows import flows_command, parse_since
    from rummyhall.store.database import default_url

    url = args.database or default_url(args.data_dir, create=False)
    if not args.flows:
        if args.since is not None or args.currency != "chips" or args.top != 20:
            print("audit: --top, --since and --currency go with --flows", file=sys.stderr)
            return 2
        return audit_command(url, out, as_json=args.json)
    since = None
    if args.since is not None:
        try:
            since = parse_since(args.since)
        except ValueError:
            print(f"audit: --since {args.since!r} is not a date, a time or a span", file=sys.stderr)
            return 2
    if args.top < 1:
        print("audit: --top takes a number of pairs, 1 or more", file=sys.stderr)
        return 2
    return flows_command(
        url, out, currency=args.currency, since=since, top=args.top, as_json=args.json
    )


def _add_server_commands(sub: Any) -> None:
    from rummyhall.server.run import DEFAULT_DATA

    p = sub.add_parser("serve", help="run the room server (HTTP API, WebSocket, web client)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--database", help="database URL (default: SQLite in the data folder); "
        "PostgreSQL: postgresql+asyncpg://user:password@host/db",
    )  # fmt: skip
    p.add_argument(
        "--data-dir", type=Path, default=DEFAULT_DATA, help="where the server keeps its files"
    )
    p.add_argument("--no-bots", action="store_true", help="never fill empty seats with bots")
    p.add_argument(
        "--bot-wait", type=float, default=5.0, help="seconds before bots fill empty seats"
    )
    p.add_argument(
        "--bot-think-ms",
        default="600-1800",
        help="a bot's thinking time in ms: LOW-HIGH or one number",
    )
    p.add_argument("--next-game-ms", type=int, default=6000, help="pause between two games")
    p.add_argument(
        "--away-grace-ms", type=int, default=20_000,
        help="how long a seated player may be disconnected before standing up between games",
    )  # fmt: skip
    p.add_argument(
        "--deal-ms", type=int, default=1500, help="pause between a deal's commitment and the deal"
    )
    p.add_argument(
        "--tables-per-account", type=int, default=3,
        help="how many open tables one account may have opened at a time",
    )  # fmt: skip
    p.add_argument(
        "--empty-table-ms", type=int, default=60_000,
        help="how long a table nobody has sat at stays open",
    )  # fmt: skip
    p.add_argument(
        "--origin", action="append", default=[], help="a public origin browsers use (repeatable)"
    )
    p.add_argument(
        "--secure-cookies", action=argparse.BooleanOptionalAction, default=None,
        help="session cookies for HTTPS only (default: yes when an --origin is https)",
    )  # fmt: skip
    p.add_argument(
        "--allowed-host", action="append", default=[],
        help="a Host name the server answers besides localhost's, --host's and the --origin "
        "hosts (repeatable; '*' for any)",
    )  # fmt: skip
    p.add_argument(
        "--seed-key-file", type=Path, default=None,
        help="the key that seals unrevealed deal seeds in the database (default: seed.key in "
        "the data folder, made on first start); keep it out of database backups",
    )  # fmt: skip
    purse = p.add_argument_group("a new player's chips")
    for option, usual, chips in (
        ("--starting-silver", "100, the level-1 silver limit", "silver chips"),
        ("--starting-gold", "1000", "gold chips (a welcome purse)"),
    ):
        purse.add_argument(option, type=_chips, default=None, help=f"{chips} (default {usual})")
    limits = p.add_argument_group("sign-in limits (per client address / per account name)")
    for flag, kind, default, what in (
        ("--login-client-per-minute", float, 10.0, "login attempts per client, on average"),
        ("--login-client-burst", int, 20, "login attempts per client, in a burst"),
        ("--login-account-per-minute", float, 1.0, "wrong passwords per account, on average"),
        ("--login-account-burst", int, 10, "wrong passwords per account before it is locked"),
        ("--signup-client-per-minute", float, 2.0, "new accounts/guests per client, on average"),
        ("--signup-client-burst", int, 10, "new accounts/guests per client, in a burst"),
        ("--hash-workers", int, 2, "threads checking passwords"),
        ("--hash-queue", int, 32, "password checks that may wait (beyond: 503 busy)"),
        ("--session-purge-ms", int, 3_600_000, "how often expired sessions are deleted"),
    ):
        # (the default is Settings' own, shown in the help; None here leaves it to Settings)
        limits.add_argument(flag, type=kind, default=None, help=f"{what} (default {default})")
    limits.add_argument(
        "--no-auth-limits", action="store_true",
        help="lift the sign-in limits (load and browser tests only, never on a network)",
    )  # fmt: skip
    nodes = p.add_argument_group("several nodes (docs/cluster.md; PostgreSQL --database)")
    nodes.add_argument(
        "--redis", default=None, metavar="URL",
        help="run as one node of several: table leases in this Redis (redis://host:6379/0)",
    )  # fmt: skip
    nodes.add_argument(
        "--node-id", default=None, help="this node's name, unique among the nodes (with --redis)"
    )
    nodes.add_argument(
        "--lease-ttl-ms", type=int, default=5_000,
        help="how long a table's lease lasts unless renewed (renewed every third of it): about "
        "how long a dead node's tables wait before another node takes them over",
    )  # fmt: skip
    p.add_argument("--log-level", default="info")
    p.set_defaults(run=_cmd_serve)

    p = sub.add_parser("admin", help="operator calls to a running server")
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the server's address")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA,
        help="the server's data folder (its admin token)",
    )
    admin = p.add_subparsers(dest="admin_command", required=True)
    grant = admin.add_parser("grant", help="give a player chips (minted)")
    grant.add_argument("name")
    grant.add_argument("amount", type=int)
    grant.add_argument("--reason", default="grant")
    grant.add_argument("--gold", action="store_true", help="gold chips instead of silver")
    purchase = admin.add_parser(
        "purchase", help="record a shop's order of gold chips (minted once per order id)"
    )
    purchase.add_argument("order", help="the shop's order id (1-64 of A-Z a-z 0-9 _ . : -)")
    purchase.add_argument("name")
    purchase.add_argument("gold", type=int)
    purchase.add_argument("--reason", default="purchase")
    admin.add_parser("tables", help="list the live tables")
    void = admin.add_parser("void", help="end a stuck game; its pot goes back to who paid it")
    void.add_argument("table", type=int)
    drain = admin.add_parser(
        "drain",
        help="a node of several hands its tables on to the other nodes and opens no more "
        "(before it is stopped: a rolling upgrade)",
    )
    drain.add_argument(
        "node", help="the node's id (--node-id): refused if the node at --url is another"
    )
    p.set_defaults(run=_cmd_admin)


def _chips(text: str) -> int:
    """An amount of chips on the command line: a whole number, 0 or more."""
    try:
        amount = int(text)
    except ValueError:
        amount = -1
    if amount < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of chips (0 or more)")
    return amount


def _cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    from rummyhall.server.run import serve

    return serve(
        host=args.host,
        port=args.port,
        database=args.database,
        data_dir=args.data_dir,
        bots=not args.no_bots,
        bot_wait=args.bot_wait,
        bot_think=args.bot_think_ms,
        next_game_ms=args.next_game_ms,
        away_grace_ms=args.away_grace_ms,
        deal_ms=args.deal_ms,
        tables_per_account=args.tables_per_account,
        empty_table_ms=args.empty_table_ms,
        origins=tuple(args.origin),
        secure_cookies=args.secure_cookies,
        allowed_hosts=tuple(args.allowed_host),
        auth_limits=not args.no_auth_limits,
        redis=args.redis,
        node_id=args.node_id,
        lease_ttl_ms=args.lease_ttl_ms,
        tuning={
            name: getattr(args, name)
            for name in (
                "login_client_per_minute",
                "login_client_burst",
                "login_account_per_minute",
                "login_account_burst",
                "signup_client_per_minute",
                "signup_client_burst",
                "hash_workers",
                "hash_queue",
                "session_purge_ms",
                "seed_key_file",
                "starting_silver",
                "starting_gold",
            )
            if getattr(args, name) is not None
        },
        log_level=args.log_level,
        out=out,
    )


def _cmd_admin(args: argparse.Namespace, out: TextIO) -> int:
    from rummyhall.server.run import admin

    return admin(args, out)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args, sys.stdout)
    except BrokenPipeError:  # e.g. `rummyhall replay game.json -v | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
