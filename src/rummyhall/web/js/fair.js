// Provably-fair deals, checked in the browser with Web Crypto (docs/provably-fair.md, step by
// step): SHA-256 of the revealed server seed must equal the commitment published before the
// deal; HMAC-SHA256(seed, "client_seed:nonce:k") blocks cut into big-endian 32-bit words drive
// rejection sampling and a top-down Fisher-Yates shuffle of the canonical shoe. Refill r of a
// deal's closed deck is the same shuffle under the client seed "client_seed:refill:r", applied to
// the cards under the open pile's top card, bottom first.
//
// Nothing here knows a game: which positions of the deck go to which seat (the deal order, the
// cut, the toss) is the game's, given to verifyRecord as `dealtCards` (the `dealtCards` export of
// the game's view module, docs/client.md; js/history.js finds it through js/games/registry.js).
//
// Exports:
//   hexToBytes(hex), bytesToHex(bytes), sha256Hex(bytes), commitmentOf(seedHex)
//   canonicalShoe(decks, jokers) -> ["AS", "2S", ..., "KC", "JK", ...]
//   randomWords(seedHex, clientSeed, nonce) -> {next(): Promise<number>}
//   below(words, n) -> Promise<number>             a fair number in [0, n)
//   shuffledIndices(seedHex, clientSeed, nonce, size) -> Promise<number[]>
//   deckOrder(deal) -> Promise<string[]>            deal = {server_seed, client_seed, nonce, decks, jokers}
//   verifyDeal(deal) -> Promise<{commitmentOk, computedCommitment, deck}>
//   refillOrder(seedHex, clientSeed, nonce, refill, under) -> Promise<string[]>
//       refill `refill` (1, 2, ...) of a deal: `under` (bottom of the open pile first) reordered,
//       top of the new closed deck first
//   verifyRecord(record, steps, seat, dealtCards?) -> Promise<{ok, deals: [...]}>
//       every fair deal of a record: its commitment, its deck, and the asking seat's dealt cards
//       (from the replay step right after the deal) compared with the deck's positions:
//       dealtCards(deck, view) -> {hand, open, cut?, toss?} | null is the game's deal order (the
//       cards the engine gives view.viewer from deck; null when that seat was not dealt in;
//       toss: false when the toss cards are not the top of the deck). Without it only the
//       commitment and the refills are checked (handChecked: false).
//       Also {refills: [...]}: every refill of the closed deck, recomputed from its deal's seeds
//       ({action, deal, refill, checked, ok, problems, deck}); an old record's refill stored as
//       plain cards is listed with checked false.

const SUITS = ['S', 'H', 'D', 'C'];
const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const TWO_32 = 4294967296;

function subtle() {
  const api = globalThis.crypto && globalThis.crypto.subtle;
  if (!api) {
    throw new Error('this browser offers no Web Crypto here (open the site over https or localhost)');
  }
  return api;
}

export function hexToBytes(hex) {
  const text = String(hex).trim();
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) {
    throw new Error('the server seed is not hexadecimal');
  }
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i += 1) {
    bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}

export function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(bytes) {
  return bytesToHex(await subtle().digest('SHA-256', bytes));
}

export async function commitmentOf(seedHex) {
  return sha256Hex(hexToBytes(seedHex));
}

export function canonicalShoe(decks = 1, jokers = 0) {
  const shoe = [];
  for (let d = 0; d < decks; d += 1) {
    for (const suit of SUITS) {
      for (const rank of RANKS) shoe.push(rank + suit);
    }
    for (let j = 0; j < jokers; j += 1) shoe.push('JK');
  }
  return shoe;
}

export function randomWords(seedHex, clientSeed, nonce) {
  const seed = hexToBytes(seedHex);
  const encoder = new TextEncoder();
  const keyPromise = subtle().importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  let block = 0;
  let words = [];
  return {
    async next() {
      if (words.length === 0) {
        const key = await keyPromise;
        const message = encoder.encode(`${clientSeed}:${nonce}:${block}`);
        const mac = new DataView(await subtle().sign('HMAC', key, message));
        for (let t = 0; t < 8; t += 1) words.push(mac.getUint32(4 * t, false));
        block += 1;
      }
      return words.shift();
    },
  };
}

export async function below(words, n) {
  const threshold = Math.floor(TWO_32 / n) * n; // exact: every value stays under 2^53
  for (;;) {
    const w = await words.next();
    if (w < threshold) return w % n;
  }
}

export async function shuffledIndices(seedHex, clientSeed, nonce, size) {
  const words = randomWords(seedHex, clientSeed, nonce);
  const a = Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i >= 1; i -= 1) {
    const j = await below(words, i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export async function deckOrder(deal) {
  const shoe = canonicalShoe(Number(deal.decks), Number(deal.jokers));
  const order = await shuffledIndices(
    deal.server_seed,
    String(deal.client_seed),
    Number(deal.nonce),
    shoe.length,
  );
  return order.map((index) => shoe[index]);
}

export async function refillOrder(seedHex, clientSeed, nonce, refill, under) {
  const number = Number(refill);
  if (!Number.isInteger(number) || number < 1) throw new Error('a refill is numbered 1, 2, ...');
  const order = await shuffledIndices(seedHex, `${clientSeed}:refill:${number}`, Number(nonce), under.length);
  return order.map((index) => under[index]);
}

export async function verifyDeal(deal) {
  const computedCommitment = await commitmentOf(deal.server_seed);
  const commitmentOk = computedCommitment === String(deal.commitment || '').toLowerCase();
  const deck = await deckOrder(deal);
  return { commitmentOk, computedCommitment, deck };
}

function sameCards(a, b) {
  const x = [...a].sort();
  const y = [...b].sort();
  return x.length === y.length && x.every((card, i) => card === y[i]);
}

const plainCard = (card) => String(card).split('#')[0];
const cardsOf = (text) => String(text || '').split(/\s+/).filter(Boolean);

// One refill of the closed deck: recomputed from the seeds of its deal (`seeds`, null if the deal
// had none) as refill `number` of that deal, and compared with the record; `before` is the view
// just before it (its open pile is the one the refill takes its cards from).
async function checkRefill(action, deal, seeds, number, dealNo, before) {
  const entry = { action, deal: dealNo, refill: number, checked: false, problems: [] };
  if (deal.refill === undefined) {
    entry.note = 'it was recorded before refills came from the seeds';
  } else if (!seeds) {
    entry.note = 'its deal was not dealt from seeds';
  } else {
    entry.checked = true;
    const under = cardsOf(deal.from);
    try {
      entry.deck = await refillOrder(seeds.server_seed, String(seeds.client_seed), seeds.nonce, number, under);
      if (Number(deal.refill) !== number) {
        entry.problems.push(`it calls itself refill ${deal.refill}, but it is refill ${number} of its deal`);
      } else if (entry.deck.join(' ') !== cardsOf(deal.cards).join(' ')) {
        entry.problems.push('the new closed deck is not the order the seeds give the open pile\'s cards');
      }
      const open = before && Array.isArray(before.open) ? before.open : null;
      if (open && open.slice(0, -1).join(' ') !== under.map(plainCard).join(' ')) {
        entry.problems.push('the cards it shuffled are not the open pile you saw under its top card');
      }
    } catch (error) {
      entry.problems.push(error && error.message ? error.message : String(error));
    }
  }
  entry.ok = entry.problems.length === 0;
  return entry;
}

export async function verifyRecord(record, steps, seat, dealtCards = null) {
  const deals = [];
  const refills = [];
  const actions = (record && record.actions) || [];
  let seeds = null;
  let count = 0;
  for (let i = 0; i < actions.length; i += 1) {
    const deal = actions[i].deal;
    if (!deal) continue;
    if (deal.server_seed === undefined) {
      // A refill (the replay shows the house refilling just before it), or a deal without seeds.
      const before = steps && steps[i] && steps[i].view;
      if (deal.refill !== undefined || (before && before.phase === 'reshuffle')) {
        count += 1;
        const entry = await checkRefill(i + 1, deal, seeds, count, deals.length, before);
        if (entry.problems.length) {
          entry.problems = entry.problems.map((p) => `Refill ${count} of the closed deck (step ${i + 1}): ${p}`);
        }
        refills.push(entry);
      } else {
        seeds = null;
        count = 0;
      }
      continue;
    }
    seeds = deal;
    count = 0;
    const entry = { action: i + 1, deal, problems: [] };
    try {
      const checked = await verifyDeal(deal);
      Object.assign(entry, checked);
      if (!checked.commitmentOk) {
        entry.problems.push('the revealed seed does not hash to the published commitment');
      }
      const step = steps && steps[i + 1];
      const view = step && step.view;
      const dealt = dealtCards && view && view.viewer === seat ? dealtCards(checked.deck, view) : null;
      if (dealt) {
        entry.expected = dealt;
        entry.got = { hand: view.hand || [], open: (view.open || [])[0] || null, cut: view.cut || null };
        if (dealt.toss === false) entry.problems.push('the toss cards are not the top of this deck');
        if (!sameCards(dealt.hand, entry.got.hand)) {
          entry.problems.push('your cards are not the ones this deck deals to your seat');
        }
        if (dealt.open !== entry.got.open) {
          entry.problems.push('the first open card is not the one this deck puts there');
        }
        if ((dealt.cut ?? null) !== entry.got.cut) {
          entry.problems.push('the cut joker is not the one this deck puts there');
        }
        entry.handChecked = true;
      } else {
        entry.handChecked = false;
      }
    } catch (error) {
      entry.commitmentOk = false;
      entry.problems.push(error && error.message ? error.message : String(error));
    }
    entry.ok = entry.problems.length === 0;
    deals.push(entry);
  }
  const ok = deals.length > 0 && deals.every((d) => d.ok) && refills.every((r) => r.ok);
  return { ok, deals, refills };
}
