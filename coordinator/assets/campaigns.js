// Live refresh of the campaigns table: the same numbers from /api/campaigns every two seconds.
function eta(s) {
  if (s === null) return '–';
  if (s <= 0) return 'done';
  if (s < 120) return Math.round(s) + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

async function refresh() {
  try {
    const reply = await fetch('/api/campaigns');
    const data = await reply.json();
    for (const c of data.campaigns) {
      const row = document.querySelector(`tr[data-campaign="${CSS.escape(c.name)}"]`);
      if (!row) continue;
      row.querySelector('progress').value = c.seeds_done;
      const seeds = row.querySelector('.seeds-done');
      seeds.dataset.seedsDone = c.seeds_done;
      seeds.textContent = `${c.seeds_done} / ${c.seeds_total}`;
      const solving = row.querySelector('.in-progress');
      solving.dataset.seedsInProgress = c.seeds_in_progress;
      solving.textContent = c.seeds_in_progress;
      row.querySelector('.units').textContent = `${c.units_done} / ${c.units_total}`;
      row.querySelector('.leased').textContent = c.units_leased;
      row.querySelector('.quarantined').textContent = c.units_quarantined;
      row.querySelector('.to-check').textContent = c.units_to_check;
      row.querySelector('.mismatches').textContent = c.mismatches;
      row.querySelector('.rate').textContent = Math.round(c.seeds_per_second);
      row.querySelector('.eta').textContent = eta(c.eta_seconds);
      row.querySelector('.hardest-moves').textContent = c.hardest_moves;
    }
  } catch (e) {
    // The coordinator may be restarting; try again at the next tick.
  }
}

setInterval(refresh, 2000);
