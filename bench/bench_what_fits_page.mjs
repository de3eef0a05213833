// "What can I run?" on the page (issue 35): the time from the request to the list painted, in headless Chromium,
// as the panel records it (panels/what-fits.js: the Performance measures 'vramcalc:what-fits', from the request
// sent to the worker to the frame after its first screenful of rows, and 'vramcalc:what-fits-all', to the last row). The first list of a page prepares every catalog
// model in the page's worker; the warm ones are what a change of the order, a filter, the intent or the machine costs.
// usage: node bench/bench_what_fits_page.mjs [pages] [warm changes per page]   (after scripts/build.sh)
import { startServer, launchBrowser, openCalculator } from '../tests/browser/harness.mjs';

const pages = Number(process.argv[2] || 5);
const changes = Number(process.argv[3] || 8);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = (xs) => `median ${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}), n = ${xs.length}`;

const server = await startServer();
const context = await launchBrowser();
const settledList = (page) => page.waitForSelector('#what-fits[data-state]:not([aria-busy])', { state: 'attached', timeout: 60000 });
const measures = (page, name) => page.evaluate((n) => performance.getEntriesByName(n)
  .map((m) => ({ ms: m.duration, first: m.detail.first, rows: m.detail.rows })), name);
// Warm changes, in turn: the order, a filter, the intent, the machine's RAM.
const steps = [
  (p) => p.selectOption('#wf-sort', 'speed'), (p) => p.selectOption('#wf-sort', 'size'),
  (p) => p.selectOption('#wf-size', 'medium'), (p) => p.selectOption('#wf-size', ''),
  (p) => p.click('#wf-intents button[data-intent=serve]'), (p) => p.click('#wf-intents button[data-intent=chat]'),
  (p) => p.fill('#ram-gb', '32'), (p) => p.fill('#ram-gb', '64'),
];
const first = [];
const warm = [];
const firstAll = [];
const warmAll = [];
let rows = 0;
try {
  for (let i = 0; i < pages; i++) {
    const page = await openCalculator(context, `${server.url}index.html?gpu=rtx4090&ram_gb=64`);
    await page.click('#what-fits-open');
    await settledList(page);
    for (let c = 0; c < changes; c++) {
      await steps[c % steps.length](page);
      await settledList(page);
    }
    for (const m of await measures(page, 'vramcalc:what-fits')) (m.first ? first : warm).push(m.ms), rows = Math.max(rows, m.rows);
    for (const m of await measures(page, 'vramcalc:what-fits-all')) (m.first ? firstAll : warmAll).push(m.ms);
    await page.close();
  }
  console.log(`What can I run? on the page: request to the list painted (Chromium ${context.browser()?.version() ?? ''}, ${pages} fresh pages, up to ${rows} rows)`);
  console.log('  to the first screenful of rows painted:');
  console.log(`    first list of a page (the worker prepares the catalog): ${summary(first)}`);
  console.log(`    warm (order, filter, intent, RAM changed):              ${summary(warm)}`);
  console.log('  to the last row painted (the rest added a few dozen a task):');
  console.log(`    first list of a page:                                   ${summary(firstAll)}`);
  console.log(`    warm:                                                   ${summary(warmAll)}`);
} finally {
  await context.close();
  await server.close();
}
