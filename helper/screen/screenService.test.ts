import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError, type WindowInfo } from '../../protocol/index.js';
import { FakeScreen } from '../testing/fakeScreenBackend.js';
import { ScreenService, type ScreenContext } from './screenService.js';
import { MAX_ANSWER_BACKLOG, defaultWork } from './screenWork.js';

const code = (c: string, reason?: string) => (e: unknown) =>
  e instanceof OverseerError && e.code === c && (reason === undefined || e.info.data?.['reason'] === reason);

function setup(
  screen = new FakeScreen(),
  backlog = (): number => 0,
): { screen: FakeScreen; service: ScreenService; context: ScreenContext; as: (agent: string | undefined) => void } {
  let agent: string | undefined;
  const info = (id: string): WindowInfo => ({ window: id, title: id, app: 'app', pid: 7, process_start: '1', foreground: true });
  const context: ScreenContext = {
    resolveWindow: (id) => Promise.resolve(info(id)),
    appName: () => Promise.resolve('app'),
    elementAt: () => Promise.resolve({ element: { role: 'button', name: 'OK', password: false } }),
    focused: () => Promise.resolve({ element: { role: 'edit', password: true } }),
    excluded: (w) => (w.title === 'Overseer' ? 'the supervisor’s own window' : undefined),
    accessibility: () => ({ backend: 'fake', available: true }),
    agent: () => agent,
  };
  return {
    screen,
    context,
    as: (who) => {
      agent = who;
    },
    service: new ScreenService(
      () => Promise.resolve(screen),
      context,
      () => {},
      defaultWork(() => {}, backlog),
    ),
  };
}

describe('the screen service', () => {
  it('masks the visible part of the supervisor’s window only, and names the masked image rectangles', async () => {
    const { screen, service } = setup();
    screen.windows_ = [
      { handle: 'a', title: 'Other', classes: [], rect: { x: 0, y: 0, width: 50, height: 50 } },
      { handle: 'o', title: 'Overseer', classes: [], rect: { x: 0, y: 0, width: 100, height: 100 } },
    ];
    const shot = await service.capture({ max_width: 100, max_height: 50 });
    assert.deepEqual(shot.transform, { scale_x: 2, scale_y: 2, origin: { x: 0, y: 0 } });
    // The supervisor's window less the part "Other" covers: two rectangles, in image pixels.
    assert.deepEqual(shot.masked, [
      { x: 0, y: 25, w: 50, h: 25 },
      { x: 25, y: 0, w: 25, h: 25 },
    ]);
  });

  it('binds input to the capture: tolerates a blinking caret, refuses any other change, a monitor change and a capture no longer kept', async () => {
    const { screen, service } = setup();
    const shot = await service.capture({});
    screen.paint({ x: 12, y: 10, width: 1, height: 17 }, 0); // a caret drawn: one column of 17 px
    const ok = await service.input({ op: 'click', point: { x: 20, y: 20 }, bound: shot.capture });
    assert.equal(ok.dispatched, true);
    assert.equal(ok.changed, 17 / (52 * 52)); // the square, cut by the screen's corner
    screen.paint({ x: 30, y: 10, width: 2, height: 2 }, 0); // 4 more pixels: not a caret, however small
    await assert.rejects(service.input({ op: 'click', point: { x: 20, y: 20 }, bound: shot.capture }), code('stale_screen', 'region_changed'));
    const far = await service.input({ op: 'click', point: { x: 150, y: 50 }, bound: shot.capture });
    assert.equal(far.dispatched, true, 'a change elsewhere does not make this point stale');
    const second = await service.capture({});
    screen.monitors = [{ ...screen.monitors[0]!, scale: 2 }];
    await assert.rejects(service.input({ op: 'click', point: { x: 20, y: 20 }, bound: second.capture }), code('stale_screen', 'monitors_changed'));
    await assert.rejects(service.input({ op: 'click', point: { x: 20, y: 20 }, bound: 'Cnever' }), code('stale_screen', 'screenshot_gone'));
    // A picture only a person sees is not kept: nothing can be bound to it, and it pushes nothing out.
    const unkept = await service.capture({ keep: false });
    await assert.rejects(service.input({ op: 'click', point: { x: 20, y: 20 }, bound: unkept.capture }), code('stale_screen', 'screenshot_gone'));
    for (let i = 0; i < 20; i++) await service.capture({ keep: false, max_width: 10, max_height: 10 });
    await assert.rejects(
      service.input({ op: 'click', point: { x: 20, y: 20 }, bound: second.capture }),
      code('stale_screen', 'monitors_changed'),
      'still kept',
    );
    assert.deepEqual(screen.dispatched, ['click 20,20 left ×1', 'click 150,50 left ×1']);
  });

  it('binds an agent’s input to its own captures only: another agent’s capture id is refused as gone, and another agent’s 17 captures leave it kept', async () => {
    const { screen, service, as } = setup();
    as('A');
    const mine = await service.capture({});
    as('B');
    await assert.rejects(service.input({ op: 'click', point: { x: 20, y: 20 }, bound: mine.capture }), code('stale_screen', 'screenshot_gone'));
    for (let i = 0; i < 17; i++) await service.capture({ max_width: 10, max_height: 10 });
    as(undefined);
    await assert.rejects(service.input({ op: 'click', point: { x: 20, y: 20 }, bound: mine.capture }), code('stale_screen', 'screenshot_gone'));
    as('A');
    const ok = await service.input({ op: 'click', point: { x: 20, y: 20 }, bound: mine.capture });
    assert.equal(ok.dispatched, true);
    assert.deepEqual(screen.dispatched, ['click 20,20 left ×1']);
  });

  it('refuses an agent’s captures past its share at once, typed timeout with reason busy, while another agent’s run', async () => {
    const { service, as } = setup();
    as('A');
    const flood = Array.from({ length: 6 }, () =>
      service.capture({ format: 'jpeg' }).then(
        () => 'image',
        (e: unknown) => (code('timeout', 'busy')(e) ? 'busy' : String(e)),
      ),
    );
    as('B');
    const other = service.capture({});
    assert.deepEqual((await Promise.all(flood)).sort(), ['busy', 'busy', 'image', 'image', 'image', 'image']);
    assert.equal((await other).image.mime, 'image/png');
  });

  it('refuses agents’ captures while the supervisor has not read 64 MiB of earlier answers, never the person’s', async () => {
    let unread = MAX_ANSWER_BACKLOG + 1;
    const { service, as } = setup(new FakeScreen(), () => unread);
    as('A');
    await assert.rejects(service.capture({}), (e: unknown) => code('timeout', 'busy')(e) && (e as OverseerError).info.data?.['queue'] === 'answers');
    as(undefined);
    assert.equal((await service.capture({ keep: false })).image.mime, 'image/png', 'the Screen view still gets its picture');
    unread = 0;
    as('A');
    assert.equal((await service.capture({})).image.mime, 'image/png');
  });

  it('refuses input on an excluded window and keys while it has the focus, and keys when the focus moved since the check', async () => {
    const { screen, service } = setup();
    screen.windows_ = [{ handle: 'o', title: 'Overseer', classes: [], rect: { x: 100, y: 0, width: 100, height: 100 } }];
    await assert.rejects(service.input({ op: 'click', point: { x: 150, y: 50 } }), code('excluded_target'));
    await assert.rejects(service.input({ op: 'drag', point: { x: 10, y: 10 }, to: { x: 150, y: 50 } }), code('excluded_target'), 'a drag that ends on it');
    screen.focus = 'o';
    await assert.rejects(service.input({ op: 'type', text: 'x' }), code('excluded_target'));
    screen.focus = undefined;
    await assert.rejects(service.input({ op: 'type', text: 'x', focus: 'o' }), code('stale_screen', 'focus_changed'));
    await assert.rejects(service.input({ op: 'click', point: { x: 200, y: 5 } }), code('invalid_argument'), 'off the screen');
    assert.deepEqual(screen.dispatched, []);
  });

  it('where windows have no known places, takes the keyboard focus from the tree: keys into Overseer’s own are refused, others bound to the active window', async () => {
    const { screen, service, context } = setup();
    screen.degradations = ['no_window_positions'];
    const active = (title: string | undefined) => {
      context.activeWindow = () =>
        Promise.resolve(
          title === undefined ? undefined : { handle: `a11y:${title}`, title, pid: 7, classes: ['app'], rect: { x: 0, y: 0, width: 0, height: 0 } },
        );
    };
    active('Overseer');
    await assert.rejects(service.input({ op: 'type', text: 'x', check_only: true }), code('excluded_target'));
    await assert.rejects(service.input({ op: 'key', keys: [{ modifiers: [], key: 'Return' }] }), code('excluded_target'), 'at dispatch too');
    active('Editor');
    const check = await service.input({ op: 'type', text: 'secret', check_only: true });
    assert.deepEqual([check.window?.handle, check.window?.title, check.focus_password, check.windows_unknown], ['a11y:Editor', 'Editor', true, true]);
    active('Other');
    await assert.rejects(
      service.input({ op: 'type', text: 'x', focus: 'a11y:Editor' }),
      code('stale_screen', 'focus_changed'),
      'the focus moved since the card',
    );
    active(undefined);
    await assert.rejects(service.input({ op: 'type', text: 'x', focus: 'a11y:Editor' }), code('stale_screen', 'focus_changed'), 'or can no longer be told');
    assert.deepEqual(screen.dispatched, []);
    active('Editor');
    await service.input({ op: 'type', text: 'ok', focus: 'a11y:Editor' });
    assert.equal(screen.dispatched.length, 1);
  });

  it('checks without dispatching: the element at the point, a crop, a fresh capture when bound to none, password focus for keys', async () => {
    const { screen, service } = setup();
    screen.windows_ = [{ handle: 'w', title: 'App', classes: [], rect: { x: 0, y: 0, width: 200, height: 100 }, pid: 7 }];
    const check = await service.input({ op: 'click', point: { x: 5, y: 5 }, check_only: true });
    assert.equal(check.dispatched, false);
    assert.deepEqual(check.element, { role: 'button', name: 'OK', password: false });
    assert.ok(check.fresh !== undefined, 'bound to no screenshot: a capture for the card');
    // 400×240 around 5,5 reaches past all four edges of a 200×100 screen: clipped, it is the whole screen.
    assert.deepEqual(check.crop?.rect, { x: 0, y: 0, width: 200, height: 100 }, 'the crop is clipped to the screen');
    screen.focus = 'w';
    const keys = await service.input({ op: 'type', text: 'secret', check_only: true });
    assert.equal(keys.focus_password, true);
    assert.equal(keys.window?.handle, 'w');
    assert.deepEqual(screen.dispatched, []);
  });

  it('captures a partly covered window with the covered part masked and named, and refuses a wholly covered one', async () => {
    const { screen, service } = setup();
    screen.windows_ = [
      { handle: 'c', title: 'Cover', classes: [], rect: { x: 0, y: 0, width: 50, height: 100 }, pid: 9 },
      { handle: 'w', title: 'W1', classes: [], rect: { x: 0, y: 0, width: 100, height: 100 }, pid: 7 },
    ];
    const shot = await service.capture({ window: 'W1' });
    assert.deepEqual(shot.region, { x: 0, y: 0, width: 100, height: 100 });
    assert.ok(shot.degradations.includes('partly_covered'));
    assert.deepEqual(shot.masked, [{ x: 0, y: 0, w: 50, h: 100 }]);
    screen.windows_[0]!.rect = { x: 0, y: 0, width: 200, height: 100 };
    await assert.rejects(service.capture({ window: 'W1' }), code('capture_unavailable', 'window_covered'));
  });

  it('says exactly what works on Wayland without an X display, and refuses input typed', async () => {
    const saved = { ...process.env };
    process.env['XDG_SESSION_TYPE'] = 'wayland';
    process.env['WAYLAND_DISPLAY'] = 'wayland-0';
    delete process.env['DISPLAY'];
    try {
      const { service } = setup();
      const none = new ScreenService(
        () => Promise.reject(new OverseerError({ code: 'capture_unavailable', detail: 'no X display', data: { reason: 'no_display' } })),
        (service as unknown as { context: ScreenContext }).context,
        () => {},
      );
      const caps = await none.capabilities();
      assert.equal(caps.session, 'wayland');
      assert.equal(caps.capture.available, false);
      assert.equal(caps.input.available, false);
      assert.equal(caps.accessibility.available, true, 'the accessibility tier keeps working');
      await assert.rejects(none.input({ op: 'click', point: { x: 1, y: 1 } }), code('input_unavailable'));
      await assert.rejects(none.capture({}), code('capture_unavailable'));
    } finally {
      process.env = saved;
    }
  });
});
