// Sitting down when you may hold a seat elsewhere already. The server refuses a seat at a second
// table unless the player asks for one (error seated_elsewhere): a player who went back to the
// lobby with a seat still held must not end up paying at two tables without knowing it. This
// asks them which they meant: back to the table they have, or a seat here as well.
//
// data-testid hooks: elsewhere-dialog, elsewhere-go (back to that table), elsewhere-also (sit
// here as well).

import { explain } from './errors.js';
import { el, toast, openDialog } from './ui.js';

// request(another) sends the sit (another: sit even with a seat elsewhere) and resolves to the
// server's answer. Resolves to the answer once seated, or null (refused, or the player went
// back to their other table instead).
export async function sitWithConsent(app, request) {
  try {
    const answer = await request(false);
    app.refreshMe();
    return answer;
  } catch (error) {
    if (error.code !== 'seated_elsewhere') {
      toast(explain(error.code, error.message), 'error');
      return null;
    }
  }
  const me = await app.refreshMe();
  const held = ((me && me.tables) || [])[0];
  const where = held ? `table ${held.table} (${held.title}, seat ${held.seat})` : 'another table';
  const choice = await new Promise((resolve) => {
    openDialog({
      title: 'You already have a seat',
      testid: 'elsewhere-dialog',
      body: el('p', {}, `You are seated at ${where}. Go back to it, or sit here as well and play at both tables (each takes its own buy-in from your wallet).`),
      actions: [
        { label: 'Cancel', value: 'cancel' },
        { label: 'Sit here as well', value: 'also', testid: 'elsewhere-also' },
        { label: held ? `Back to table ${held.table}` : 'Back to my table', kind: 'primary', value: 'go', testid: 'elsewhere-go' },
      ],
      onClose: (value) => resolve(value),
    });
  });
  if (choice === 'go' && held) {
    app.navigate(`#/table/${held.table}`);
    return null;
  }
  if (choice !== 'also') return null;
  try {
    const answer = await request(true);
    app.refreshMe();
    return answer;
  } catch (error) {
    toast(explain(error.code, error.message), 'error');
    return null;
  }
}
