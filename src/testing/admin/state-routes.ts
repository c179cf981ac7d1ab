/** Admin routes over the simulated service's data: reset, seed, members and balances, cards, remittances, reports, QR codes. */
import type { InjectedFault } from '../faults.js';
import { applySeed, checkSeed } from '../seed-file.js';
import { releaseArmed } from './faults.js';
import type { BucketsInput, SeedMemberInput } from '../state-members.js';
import type { LineName, SeedQrCodeInput } from '../state-merchant.js';
import type { SeedCardInput, SeedCardProductInput } from '../state-cards.js';
import type { SeedRemittanceInput } from '../state-remittances.js';
import { AdminError, adminJson, numberField, type AdminRoute } from './http.js';
import { memberView, membersView, type AdminHost } from './views.js';

/** Runs a seeder; its error (a typo in a reference, an unknown asset) is the caller's: 400. */
function seeding<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof AdminError) throw e;
    throw new AdminError(400, e instanceof Error ? e.message : String(e));
  }
}

function memberOr404(host: AdminHost, ref: string): ReturnType<typeof memberView> {
  const m = host.sandbox.state.member(ref);
  if (!m) throw new AdminError(404, `no member ${ref}`);
  return memberView(host, m);
}

function seedReports(host: AdminHost, body: Record<string, unknown>): unknown {
  const count = numberField(body, 'count');
  if (count === undefined) return seeding(() => host.sandbox.state.seedReport(body));
  if (!Number.isInteger(count) || count < 1 || count > 1000) throw new AdminError(400, 'count must be an integer from 1 to 1000');
  const { status, kind } = body;
  const options = { ...(typeof status === 'string' ? { status } : {}), ...(typeof kind === 'string' ? { kind } : {}) };
  return seeding(() => host.sandbox.state.seedReports(count, options));
}

/** `PUT /__sandbox/lines/:line`: the line's switch (`enabled`) and/or its halt (`halted`). */
function setLine(host: AdminHost, line: string, body: Record<string, unknown>): unknown {
  const { state } = host.sandbox;
  if (!Object.hasOwn(state.merchant.lines, line)) {
    throw new AdminError(404, `no line ${line}; lines: ${Object.keys(state.merchant.lines).join(', ')}`);
  }
  const { enabled, halted } = body;
  if ((enabled !== undefined && typeof enabled !== 'boolean') || (halted !== undefined && typeof halted !== 'boolean')) {
    throw new AdminError(400, 'enabled and halted must be true or false');
  }
  if (enabled === undefined && halted === undefined) throw new AdminError(400, 'give enabled and/or halted');
  if (enabled !== undefined) state.setLine(line as LineName, enabled);
  if (halted !== undefined) state.setLineHalted(line as LineName, halted);
  const { lines, halted: halts } = state.merchant;
  return { line, enabled: lines[line as LineName], halted: halts[line as LineName] };
}

/** Reset, whole seeds, members and their balances. */
function memberRoutes(host: AdminHost, armed: InjectedFault[]): AdminRoute[] {
  const { state } = host.sandbox;
  return [
    {
      method: 'POST',
      path: '/__sandbox/reset',
      run: () => {
        releaseArmed(armed);
        host.reset();
        return adminJson(200, { reset: true, members: membersView(host) });
      },
    },
    {
      method: 'POST',
      path: '/__sandbox/seed',
      run: (c) =>
        adminJson(
          201,
          seeding(() => applySeed(state, checkSeed(c.body()))),
        ),
    },
    { method: 'GET', path: '/__sandbox/members', run: () => adminJson(200, { data: membersView(host) }) },
    {
      method: 'POST',
      path: '/__sandbox/members',
      run: (c) =>
        adminJson(
          201,
          memberView(
            host,
            seeding(() => state.seedMember(c.body() as SeedMemberInput)),
          ),
        ),
    },
    { method: 'GET', path: '/__sandbox/members/:ref', run: (c) => adminJson(200, memberOr404(host, c.params['ref'] ?? '')) },
    {
      method: 'GET',
      path: '/__sandbox/members/:ref/balances',
      run: (c) => adminJson(200, { data: memberOr404(host, c.params['ref'] ?? '').balances }),
    },
    {
      method: 'PUT',
      path: '/__sandbox/members/:ref/balances/:asset',
      run: (c) => {
        const m = memberOr404(host, c.params['ref'] ?? '');
        const asset = c.params['asset'] ?? '';
        seeding(() => state.setBalance(m.id, asset, c.body() as BucketsInput));
        return adminJson(200, state.balance(m.id, asset));
      },
    },
  ];
}

/** The data routes. */
export function stateRoutes(host: AdminHost, armed: InjectedFault[]): AdminRoute[] {
  const { state } = host.sandbox;
  return [
    ...memberRoutes(host, armed),
    {
      method: 'POST',
      path: '/__sandbox/cards',
      run: (c) =>
        adminJson(
          201,
          seeding(() => state.seedCard(c.body() as unknown as SeedCardInput)),
        ),
    },
    {
      method: 'POST',
      path: '/__sandbox/products',
      run: (c) => adminJson(201, { id: seeding(() => state.seedCardProduct(c.body() as unknown as SeedCardProductInput)) }),
    },
    {
      method: 'GET',
      path: '/__sandbox/cards/:id',
      run: (c) => {
        const card = state.card(c.params['id'] ?? '');
        if (!card) throw new AdminError(404, `no card ${c.params['id']}`);
        return adminJson(200, card);
      },
    },
    {
      method: 'POST',
      path: '/__sandbox/remittances',
      run: (c) =>
        adminJson(
          201,
          seeding(() => state.seedRemittance(c.body() as unknown as SeedRemittanceInput)),
        ),
    },
    {
      method: 'GET',
      path: '/__sandbox/remittances/:id',
      run: (c) => {
        const order = state.remittance(c.params['id'] ?? '');
        if (!order) throw new AdminError(404, `no remittance ${c.params['id']}`);
        return adminJson(200, order);
      },
    },
    { method: 'PUT', path: '/__sandbox/lines/:line', run: (c) => adminJson(200, setLine(host, c.params['line'] ?? '', c.body())) },
    { method: 'GET', path: '/__sandbox/reports', run: () => adminJson(200, { data: state.reports }) },
    { method: 'POST', path: '/__sandbox/reports', run: (c) => adminJson(201, seedReports(host, c.body())) },
    {
      method: 'POST',
      path: '/__sandbox/qr-codes',
      run: (c) => adminJson(201, { code_value: seeding(() => state.seedQrCode(c.body() as SeedQrCodeInput)) }),
    },
  ];
}
