// Live refresh of the campaigns table: the same numbers from /api/campaigns every two seconds.
function eta(s) {
  if (s === null) return '–';
  if (s <= 0) return 'finished';
  if (s < 120) return Math.round(s) + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// A rate with a metric prefix, as the server writes it (rrm_model::numbers::si): 5.1M.
function large(v) {
  if (v >= 1e9) return (v / 1e9).toFixed(1) + 'G';
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k';
  return Math.round(v).toString();
}

// A count with thousands separators, as the server writes it: 1,234,567.
function grouped(n) {
  return Number(n).toLocaleString('en-US');
}

// Done, in progress and rate: in seeds, or in units and placements for an exhaustive
// campaign (progress_texts on the server). A finished campaign has no rate.
function progressTexts(c) {
  const finished = c.seeds_done === c.seeds_total;
  const e = c.exhaustive;
  if (e) {
    return [`${grouped(c.units_done)} / ${grouped(c.units_total)} units`,
            `${grouped(e.placements_in_progress)} placements`,
            finished ? '–' : `${large(e.placements_per_second)} placements/s`];
  }
  return [`${grouped(c.seeds_done)} / ${grouped(c.seeds_total)} seeds`,
          `${grouped(c.seeds_in_progress)} seeds`,
          finished ? '–' : `${grouped(Math.round(c.seeds_per_second))} seeds/s`];
}

async function refresh() {
  try {
    const reply = await fetch('/api/campaigns');
    const data = await reply.json();
    for (const c of data.campaigns) {
      const row = document.querySelector(`tr[data-campaign="${CSS.escape(c.name)}"]`);
      if (!row) continue;
      const [doneText, inProgressText, rateText] = progressTexts(c);
      row.querySelector('progress').value = c.seeds_done;
      const seeds = row.querySelector('.seeds-done');
      seeds.dataset.seedsDone = c.seeds_done;
      seeds.textContent = doneText;
      const solving = row.querySelector('.in-progress');
      solving.dataset.seedsInProgress = c.seeds_in_progress;
      solving.textContent = inProgressText;
      row.querySelector('.units').textContent = `${grouped(c.units_done)} / ${grouped(c.units_total)}`;
      row.querySelector('.leased').textContent = grouped(c.units_leased);
      row.querySelector('.quarantined').textContent = grouped(c.units_quarantined);
      row.querySelector('.to-check').textContent = grouped(c.units_to_check);
      row.querySelector('.mismatches').textContent = grouped(c.mismatches);
      row.querySelector('.rate').textContent = rateText;
      row.querySelector('.eta').textContent = eta(c.eta_seconds);
      row.querySelector('.hardest-moves').textContent = c.hardest_moves;
    }
  } catch (e) {
    // The coordinator may be restarting; try again at the next tick.
  }
}

setInterval(refresh, 2000);

// Whether the table's last column can be reached: its right edge inside the window, or
// the table in a container that scrolls sideways. Written on the table (`data-reach`:
// in-view, scrolls or clipped) so that a narrow window's layout can be checked.
function markReach() {
  const table = document.getElementById('campaigns');
  if (!table) return;
  const last = table.querySelector('thead th:last-child');
  const box = table.parentElement;
  const inView = last.getBoundingClientRect().right <= document.documentElement.clientWidth;
  const scrolls = box.scrollWidth > box.clientWidth && getComputedStyle(box).overflowX !== 'visible';
  table.dataset.reach = inView ? 'in-view' : scrolls ? 'scrolls' : 'clipped';
  // A scrollbar alone is easy to miss (and hidden on touch screens): say so in words.
  const hint = document.getElementById('scroll-hint');
  if (hint) hint.hidden = inView;
}
markReach();
window.addEventListener('resize', markReach);
