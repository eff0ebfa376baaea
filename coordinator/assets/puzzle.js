// Step-by-step playback of a solution: the robots' centres after each move come from the
// page's JSON block #frames.
const frames = JSON.parse(document.getElementById('frames').textContent);
let step = 0, timer = null;

function show(k) {
  step = Math.max(0, Math.min(frames.length - 1, k));
  frames[step].forEach(([x, y], robot) =>
    document.getElementById('robot-' + robot).setAttribute('transform', `translate(${x} ${y})`));
  const label = document.getElementById('step');
  if (label) label.textContent = step;
  document.querySelectorAll('.moves span').forEach(s =>
    s.classList.toggle('now', Number(s.dataset.step) === step));
}

const on = (id, f) => { const b = document.getElementById(id); if (b) b.onclick = f; };
on('next', () => show(step + 1));
on('back', () => show(step - 1));
on('play', () => {
  clearInterval(timer);
  show(0);
  timer = setInterval(() => { if (step >= frames.length - 1) clearInterval(timer); else show(step + 1); }, 700);
});
// A link may name a step: #step=5.
if (location.hash.startsWith('#step=')) show(Number(location.hash.slice(6)));
