// kvplan web calculator. All figures come from libkvplan (WebAssembly) through kvplan_call();
// this file only reads the form fields, calls the library, and draws what it returns.
// Every number shown sits in an element with data-path (its place in the library's JSON, the
// same JSON as the CLI's --json) and data-value (the exact value), so tests can compare them.
'use strict';

let lib = null;
const charts = {};
window.kvplanCharts = charts;  // read by the browser tests
const PANELS = ['model', 'compare', 'fit', 'speed', 'loop', 'engine', 'check', 'simulate'];
const DEFAULT_COMPARE = [
  'meta-llama/Llama-3.1-70B', 'meta-llama/Llama-3.1-8B', 'deepseek-ai/DeepSeek-V3', 'google/gemma-3-1b-it',
  'Qwen/Qwen3-0.6B', 'openai/gpt-oss-20b', 'Qwen/Qwen3-Next-80B-A3B-Thinking', 'mistralai/Mistral-7B-v0.1',
  'mistralai/Mixtral-8x7B-v0.1',
];

class KvplanError extends Error {}

// Byte counts pass 2^53 in petabyte-scale plans, where a JS number would round them. An integer
// a double cannot hold keeps its exact digits as a BigInt (JSON.parse source text access) and
// goes back to the library as the same digits (JSON.rawJSON). Browsers without these keep the
// rounded number, as before.
const EXACT_JSON = typeof JSON.rawJSON === 'function';
function exactInts(key, v, ctx) {
  return typeof v === 'number' && !Number.isSafeInteger(v) && ctx && /^\d+$/.test(ctx.source) ? BigInt(ctx.source) : v;
}
function rawBigInts(key, v) { return typeof v === 'bigint' ? JSON.rawJSON(v.toString()) : v; }
// Charts plot doubles; their tooltips format the exact values.
const plotted = (v) => Number(v);

function call(fn, args) {
  const text = lib.ccall('kvplan_call', 'string', ['string', 'string'], [fn, JSON.stringify(args || {}, EXACT_JSON ? rawBigInts : undefined)]);
  const r = EXACT_JSON ? JSON.parse(text, exactInts) : JSON.parse(text);
  if (!r.ok) throw new KvplanError(r.error);
  return r.result;
}

// --- formatting: the library's own formatters -------------------------------------------
function fmtBytes(n) { return call('format', { bytes: [n] }).bytes[0]; }
function fmtCount(n) { return call('format', { counts: [n] }).counts[0]; }
// A byte axis in GB (10^9 bytes), its tick labels by the library's format_gb.
function gbAxis(extra = {}) {
  return Object.assign({ title: { display: true, text: 'GB (10^9 bytes)' },
    ticks: { callback: (v) => call('format', { gb: [Math.max(0, Math.round(v))] }).gb[0] } }, extra);
}

const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};

// A number tied to its JSON path. kind: 'count' (exact integer, separators), 'bytes' (exact
// integer + " B"), 'human' (GB and GiB), 'seconds', 'rate', 'ratio', 'x' (a multiple), 'real' (a
// fraction or other non-integer), 'list' (an array, comma-separated), 'text'.
function num(path, value, kind = 'count') {
  let text;
  if (value === null || value === undefined) text = '—';
  else if (kind === 'count') text = fmtCount(value);
  else if (kind === 'bytes') text = fmtCount(value) + ' B';
  else if (kind === 'human') text = fmtBytes(value);
  else if (kind === 'seconds') text = value >= 1 ? value.toPrecision(4) + ' s' : (value * 1000).toPrecision(4) + ' ms';
  else if (kind === 'rate') text = value.toPrecision(4) + ' tok/s';
  else if (kind === 'approx') text = '≈ ' + value.toLocaleString('en-US', { maximumFractionDigits: 0 });
  else if (kind === 'x') text = value.toFixed(2) + 'x';
  else if (kind === 'ratio') text = (value * 100).toLocaleString('en-US', { maximumFractionDigits: 1 }) + ' %';
  else if (kind === 'real') text = value.toLocaleString('en-US', { maximumFractionDigits: 4 });
  else if (kind === 'list') text = value.join(', ');
  else text = String(value);
  const s = el('span', { class: 'num', 'data-path': path, 'data-kind': kind, text });
  s.dataset.value = value === null || value === undefined ? 'null' : String(value);
  return s;
}

function summary(dl, rows) {
  dl.replaceChildren();
  for (const [label, ...nodes] of rows) {
    const dd = el('dd');
    dd.append(...nodes);
    dl.append(el('dt', { text: label }), dd);
  }
}

// --- form state <-> URL --------------------------------------------------------------------
function panelEl(p) { return document.getElementById('panel-' + p); }
function fields(p) { return [...panelEl(p).querySelectorAll('input[name], select[name], textarea[name]')].filter((f) => !('nourl' in f.dataset) && f.type !== 'file'); }
function values(p) {
  const v = {};
  for (const f of panelEl(p).querySelectorAll('input[name], select[name], textarea[name]')) if (f.type !== 'file') v[f.name] = f.value;
  return v;
}
const defaults = {};

function saveUrl() {
  const q = new URLSearchParams();
  q.set('tab', current);
  for (const p of PANELS) {
    for (const f of fields(p)) if (f.value !== (defaults[p][f.name] ?? '')) q.set(p + '.' + f.name, f.value);
    if (p === 'compare') {
      const picked = compareModels();
      const same = picked.length === DEFAULT_COMPARE.length && picked.every((m) => DEFAULT_COMPARE.includes(m));
      if (!same) q.set('compare.models', picked.join(','));
    }
  }
  history.replaceState(null, '', '#' + q.toString());
}

// A value from a link: a select is offered it even when it is not among its options.
function setSelect(f, v) {
  if (f.tagName === 'SELECT' && ![...f.options].some((o) => o.value === v)) f.append(el('option', { value: v, text: `${v} (from the link)` }));
  f.value = v;
}

// A link's values go to the library as given: a select offers them even when they are not among its
// options (kv_dtype=fp8 is the library's alias of fp8_e4m3), and the library says when one is wrong.
// A parameter naming no field is reported above the panels, never dropped silently.
function loadUrl() {
  const q = new URLSearchParams(location.hash.slice(1));
  const unknown = [];
  // The Engine panel's form is the linked engine's table: pick the engine (and the GPU that fills
  // its memory) first, build that form, then set its fields.
  for (const name of ['engine', 'gpu']) if (q.has('engine.' + name)) setSelect(panelEl('engine').querySelector(`[name=${name}]`), q.get('engine.' + name));
  if (q.has('engine.engine') || q.has('engine.gpu')) tryBuildEngineForm();
  for (const [k, v] of q) {
    if (k === 'tab') continue;
    const [p, name] = k.split('.');
    if (!name || !PANELS.includes(p) || (!panelEl(p).querySelector(`[name="${CSS.escape(name)}"]`) && !(p === 'compare' && name === 'models'))) {
      unknown.push(k);
      continue;
    }
    if (p === 'compare' && name === 'models') {
      const want = new Set(v.split(','));
      for (const c of document.querySelectorAll('#compare-models input')) c.checked = want.has(c.value);
      continue;
    }
    setSelect(panelEl(p).querySelector(`[name="${CSS.escape(name)}"]`), v);
  }
  const box = document.getElementById('link-error');
  if (q.has('tab') && !PANELS.includes(q.get('tab'))) unknown.push('tab=' + q.get('tab'));
  box.textContent = unknown.length ? `This link names what the page does not have: ${unknown.join(', ')} (ignored).` : '';
  box.hidden = unknown.length === 0;
  return PANELS.includes(q.get('tab')) ? q.get('tab') : 'model';
}

// --- tabs (WAI-ARIA tabs pattern: arrows, Home, End) ----------------------------------------
let current = 'model';
function show(p, focus = false) {
  current = p;
  for (const q of PANELS) {
    const tab = document.getElementById('tab-' + q);
    tab.setAttribute('aria-selected', String(q === p));
    tab.tabIndex = q === p ? 0 : -1;
    panelEl(q).hidden = q !== p;
  }
  if (focus) document.getElementById('tab-' + p).focus();
  update(p);
  saveUrl();
}

function setupTabs() {
  const tabs = document.getElementById('tabs');
  tabs.addEventListener('click', (e) => { const b = e.target.closest('[data-panel]'); if (b) show(b.dataset.panel); });
  tabs.addEventListener('keydown', (e) => {
    const i = PANELS.indexOf(e.target.dataset.panel || current);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: PANELS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(PANELS[(to + PANELS.length) % PANELS.length], true);
  });
}

// --- running a panel -----------------------------------------------------------------------
function update(p) {
  const box = panelEl(p).querySelector('.error');
  const results = panelEl(p).querySelector('.results');
  try {
    RENDER[p](values(p));
    box.hidden = true;
    box.textContent = '';
    results.classList.remove('stale');
    panelEl(p).dataset.state = 'ok';
  } catch (err) {
    if (!(err instanceof KvplanError)) console.error(err);
    box.textContent = err.message;
    box.hidden = false;
    results.classList.add('stale');
    panelEl(p).dataset.state = 'error';
  }
  panelEl(p).dataset.rendered = String(Number(panelEl(p).dataset.rendered || 0) + 1);
}

function chart(id, config) {
  if (charts[id]) charts[id].destroy();
  config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
  charts[id] = new Chart(document.getElementById(id), config);
}


function modelArgs(v) {
  if (v.config && v.config.trim()) return { config: v.config, source: configSource || 'pasted config.json' };
  return { model: v.model };
}
let configSource = '';

const RENDER = {
  model(v) {
    const args = modelArgs(v);
    for (const f of sizeFields) if (v[f.name] !== undefined && v[f.name] !== '') args[f.name] = v[f.name];
    const r = call('inspect', args);
    const m = r.model, s = r.size;
    summary(document.getElementById('model-summary'), [
      ['model', num('size.model', s.model, 'text')],
      ['type', num('model.model_type', m.model_type, 'text')],
      ['layers', num('model.num_layers', m.num_layers)],
      ['workload', num('size.batch', s.batch), ' x ', num('size.tokens', s.tokens), ' tokens'],
      ['dtypes', num('size.k_dtype', s.k_dtype, 'text'), ' / ', num('size.v_dtype', s.v_dtype, 'text')],
      ['per token', num('size.bytes_per_token', s.bytes_per_token, 'bytes'), ' = ', num('size.bytes_per_token', s.bytes_per_token, 'human')],
      ['KV cache', num('size.kv_bytes', s.kv_bytes, 'bytes'), ' = ', num('size.kv_bytes', s.kv_bytes, 'human')],
      ['state', num('size.state_bytes', s.state_bytes, 'bytes'), ' = ', num('size.state_bytes', s.state_bytes, 'human')],
      ['total', num('size.total_bytes', s.total_bytes, 'bytes'), ' = ', num('size.total_bytes', s.total_bytes, 'human')],
    ]);
    const body = document.querySelector('#model-layers tbody');
    body.replaceChildren();
    m.layers.forEach((l, i) => {
      const sl = s.layers[i];
      const win = l.window ?? l.chunk;
      body.append(el('tr', {},
        el('td', {}, num(`model.layers.${i}.index`, l.index)),
        el('td', {}, num(`model.layers.${i}.kind`, l.kind, 'text')),
        el('td', { text: l.shape }),
        el('td', {}, win === undefined ? '—' : num(`model.layers.${i}.${l.window !== undefined ? 'window' : 'chunk'}`, win)),
        el('td', {}, num(`model.layers.${i}.bytes_per_token`, l.bytes_per_token)),
        el('td', {}, num(`model.layers.${i}.state_bytes`, l.state_bytes)),
        el('td', {}, num(`size.layers.${i}.tokens_held`, sl.tokens_held)),
        el('td', {}, num(`size.layers.${i}.bytes`, sl.bytes))));
    });
    chart('chart-model', {
      type: 'bar',
      data: { labels: s.layers.map((l) => String(l.index)),
        datasets: [{ label: `bytes per layer at ${fmtCount(s.tokens)} tokens x ${s.batch}`, data: s.layers.map((l) => plotted(l.bytes)),
          backgroundColor: s.layers.map((l) => KIND_COLORS[l.kind] || '#888') }] },
      options: { plugins: { tooltip: { callbacks: { label: (c) => `${s.layers[c.dataIndex].kind}: ${fmtBytes(s.layers[c.dataIndex].bytes)}` } } },
        scales: { x: { title: { display: true, text: 'layer' } }, y: gbAxis() } },
    });
  },

  compare(v) {
    const models = compareModels();
    const r = call('compare', { models, tokens: v.tokens, kv_dtype: v.kv_dtype });
    const body = document.querySelector('#compare-table tbody');
    body.replaceChildren();
    r.models.forEach((row, i) => {
      body.append(el('tr', {},
        el('th', { scope: 'row' }, num(`models.${i}.model`, row.model, 'text')),
        el('td', { text: row.kinds }),
        el('td', {}, num(`models.${i}.bytes_per_token`, row.bytes_per_token)),
        el('td', {}, num(`models.${i}.cache_bytes`, row.cache_bytes)),
        el('td', {}, num(`models.${i}.cache_bytes`, row.cache_bytes, 'human')),
        el('td', {}, num(`models.${i}.weights_bytes`, row.weights_bytes, 'human')),
        el('td', {}, num(`models.${i}.share_of_weights`, row.share_of_weights, 'ratio'))));
    });
    chart('chart-compare', {
      type: 'bar',
      data: { labels: r.models.map((m) => m.model.split('/').pop()),
        datasets: [{ label: `cache of one conversation at ${fmtCount(r.tokens)} tokens`, data: r.models.map((m) => plotted(m.cache_bytes)), backgroundColor: '#3b6fb6' }] },
      options: { indexAxis: 'y', scales: { x: gbAxis() },
        plugins: { tooltip: { callbacks: { label: (c) => fmtBytes(r.models[c.dataIndex].cache_bytes) } } } },
    });
  },

  fit(v) {
    // Every plan field on the form (the static ones and those built from the table); blank = unset.
    const args = { model: v.model };
    for (const f of planFields) if (v[f.name] !== undefined && v[f.name] !== '') args[f.name] = v[f.name];
    if (v.gpu_file) args.gpu_file = v.gpu_file;  // --gpu-file, pasted (no table field: the CLI reads a file)
    const p = call('plan', args);
    document.getElementById('fit-request').textContent = JSON.stringify(p.request, EXACT_JSON ? rawBigInts : undefined, 1);
    const h = document.getElementById('fit-headline');
    h.replaceChildren('The cache alone, ', num('cache_total_bytes', p.cache_total_bytes, 'human'), ', takes ',
      num('cache_only_gpus', p.cache_only_gpus), ` x ${p.gpu} at the datasheet memory (`,
      num('cache_only_gpus_device', p.cache_only_gpus_device), ' at the memory the device reports). ',
      p.fits ? 'The full plan fits.' : 'The full plan does not fit: ' + p.reason);
    h.className = 'headline ' + (p.fits ? 'good' : 'bad');
    const g = p.per_gpu;
    summary(document.getElementById('fit-summary'), [
      ['deployment', num('gpus', p.gpus), ` x ${p.gpu}: tp `, num('tp', p.tp), ', pp ', num('pp', p.pp), ', dp ', num('dp', p.dp)],
      ['fits', num('fits', p.fits, 'text')],
      ['memory per GPU', num('per_gpu.memory_bytes', g.memory_bytes, 'human'), ', usable ', num('per_gpu.usable_bytes', g.usable_bytes, 'human')],
      ['weights per GPU', num('per_gpu.weights_bytes', g.weights_bytes, 'human')],
      ['KV cache per GPU', num('per_gpu.kv_bytes', g.kv_bytes, 'human')],
      ['state per GPU', num('per_gpu.state_bytes', g.state_bytes, 'human')],
      ['reserved per GPU', num('per_gpu.reserved_bytes', g.reserved_bytes, 'human')],
      ['free per GPU', num('per_gpu.free_bytes', g.free_bytes, 'human')],
      ['short per GPU', num('per_gpu.shortfall_bytes', g.shortfall_bytes, 'human')],
      ['max conversations', num('max_concurrency', p.max_concurrency)],
      ['max context', num('max_context', p.max_context)],
      ['fewest GPUs', num('min_gpus', p.min_gpus)],
      ['KV dtype that fits', num('kv_dtype_to_fit', p.kv_dtype_to_fit, 'text')],
      ['decode step', num('decode_step_seconds', p.decode_step_seconds, 'seconds')],
      ['decode speed', num('decode_tokens_per_second', p.decode_tokens_per_second, 'rate'), ' per conversation'],
    ]);
    const parts = [['weights', g.weights_bytes, '#6c757d'], ['KV cache', g.kv_bytes, '#3b6fb6'], ['state', g.state_bytes, '#8e44ad'],
      ['reserved', g.reserved_bytes, '#e0a100'], ['free', g.free_bytes, '#2e9e5b'], ['short', g.shortfall_bytes, '#c0392b']];
    chart('chart-fit', {
      type: 'bar',
      data: { labels: ['per GPU'], datasets: parts.map(([label, b, c]) => ({ label, data: [plotted(b)], backgroundColor: c })) },
      options: { indexAxis: 'y', scales: { x: gbAxis({ stacked: true }), y: { stacked: true } },
        plugins: { tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmtBytes(parts[c.datasetIndex][1])}` } } } },
    });
    const notes = document.getElementById('fit-notes');
    notes.replaceChildren(...p.notes.map((n) => el('li', { text: n })));
  },

  speed(v) {
    const args = { model: v.model, gpu: v.gpu, weights: v.weights, context: v.context, concurrency: v.concurrency, kv_dtype: v.kv_dtype };
    const p = call('plan', args);
    const h = document.getElementById('speed-headline');
    h.replaceChildren('At ', num('context', p.context), ' tokens per conversation, reading the cache outweighs reading the weights past ',
      num('crossover_concurrency', p.crossover_concurrency), ' conversations (',
      num('crossover_tokens', p.crossover_tokens), ' cached tokens in the batch).');
    summary(document.getElementById('speed-summary'), [
      ['weights read per step', num('weight_bytes_read_per_step', p.weight_bytes_read_per_step, 'human')],
      ['cache read per step', num('kv_bytes_read_per_step', p.kv_bytes_read_per_step, 'human')],
      ['decode step', num('decode_step_seconds', p.decode_step_seconds, 'seconds')],
      ['per conversation', num('decode_tokens_per_second', p.decode_tokens_per_second, 'rate')],
      ['all conversations', num('decode_tokens_per_second_aggregate', p.decode_tokens_per_second_aggregate, 'rate')],
      ['fits in memory', num('fits', p.fits, 'text')],
    ]);
    const concurrency = [1, 2, 4, 8, 16, 32, 64, 128, 256];
    const contexts = ['1k', '4k', '16k', '32k', '128k'];
    const s = call('sweep', Object.assign({}, args, { contexts, concurrency_list: concurrency }));
    const colors = ['#9ecae1', '#6baed6', '#3182bd', '#08519c', '#08306b'];
    const datasets = s.contexts.map((c, i) => ({
      label: `${fmtCount(c)} tokens`, borderColor: colors[i], backgroundColor: colors[i], showLine: true,
      data: s.cells.filter((cell) => cell.context === c).map((cell) => ({ x: cell.concurrency, y: cell.decode_step_seconds * 1000 })),
    }));
    const top = Math.max(...s.cells.map((cell) => cell.decode_step_seconds)) * 1000;
    datasets.push({ label: `cache = weights at ${fmtCount(p.context)} tokens`, borderColor: '#c0392b', borderDash: [6, 4],
      pointRadius: 0, showLine: true, data: [{ x: p.crossover_concurrency, y: 0 }, { x: p.crossover_concurrency, y: top }] });
    chart('chart-speed', {
      type: 'scatter', data: { datasets },
      options: { scales: { x: { type: 'logarithmic', title: { display: true, text: 'conversations in the batch' } },
        y: { title: { display: true, text: 'decode step (ms)' } } } },
    });
  },

  loop(v) {
    const r = call('generation', { model: v.model, prompt: v.prompt, steps: v.steps });
    const slider = panelEl('loop').querySelector('[name=step]');
    slider.max = String(r.steps - 1);
    const n = Math.min(Number(slider.value) || 0, r.steps - 1);
    slider.value = String(n);
    const row = r.rows[n];
    const h = document.getElementById('loop-headline');
    h.replaceChildren(`Step ${n}: the sequence is `, num(`rows.${n}.sequence_tokens`, row.sequence_tokens), ' tokens. With the cache this step computes ',
      num(`rows.${n}.tokens_computed_with_cache`, row.tokens_computed_with_cache), ' (', num(`rows.${n}.cumulative_with_cache`, row.cumulative_with_cache),
      ' so far); without it ', num(`rows.${n}.tokens_computed_without_cache`, row.tokens_computed_without_cache), ' (',
      num(`rows.${n}.cumulative_without_cache`, row.cumulative_without_cache), ' so far). The cache now holds ',
      num(`rows.${n}.cache_bytes`, row.cache_bytes, 'human'), '.');
    // Token strips: a box per token of the sequence; the computed ones are marked.
    const strip = (id, computed) => {
      const box = document.getElementById(id);
      box.replaceChildren();
      for (let t = 0; t < row.sequence_tokens && t < 512; t++) {
        const isComputed = t >= Number(row.sequence_tokens) - Number(computed);
        box.append(el('span', { class: 'tok' + (isComputed ? ' computed' : '') + (t < r.prompt ? ' prompt' : ''), title: `token ${t}` }));
      }
    };
    strip('strip-with', row.tokens_computed_with_cache);
    strip('strip-without', row.tokens_computed_without_cache);
    const body = document.querySelector('#loop-table tbody');
    body.replaceChildren();
    r.rows.forEach((x, i) => body.append(el('tr', i === n ? { class: 'current' } : {},
      el('td', {}, num(`rows.${i}.step`, x.step)), el('td', {}, num(`rows.${i}.sequence_tokens`, x.sequence_tokens)),
      el('td', {}, num(`rows.${i}.tokens_computed_with_cache`, x.tokens_computed_with_cache)),
      el('td', {}, num(`rows.${i}.tokens_computed_without_cache`, x.tokens_computed_without_cache)),
      el('td', {}, num(`rows.${i}.cumulative_with_cache`, x.cumulative_with_cache)),
      el('td', {}, num(`rows.${i}.cumulative_without_cache`, x.cumulative_without_cache)),
      el('td', {}, num(`rows.${i}.cache_bytes`, x.cache_bytes)))));
    chart('chart-loop', {
      type: 'line',
      data: { labels: r.rows.map((x) => String(x.step)), datasets: [
        { label: 'computed this step, with cache', data: r.rows.map((x) => plotted(x.tokens_computed_with_cache)), borderColor: '#3b6fb6', backgroundColor: '#3b6fb6' },
        { label: 'computed this step, without cache', data: r.rows.map((x) => plotted(x.tokens_computed_without_cache)), borderColor: '#c0392b', backgroundColor: '#c0392b' },
        { label: 'total so far, with cache', data: r.rows.map((x) => plotted(x.cumulative_with_cache)), borderColor: '#3b6fb6', borderDash: [6, 4], pointRadius: 0 },
        { label: 'total so far, without cache', data: r.rows.map((x) => plotted(x.cumulative_without_cache)), borderColor: '#c0392b', borderDash: [6, 4], pointRadius: 0 },
      ] },
      options: { scales: { x: { title: { display: true, text: 'step' } }, y: { title: { display: true, text: 'tokens computed' } } } },
    });
  },

  engine(v) {
    // The form is the chosen engine's table; a new engine (the picker or a link) rebuilds it first.
    if (engineBuiltFor !== v.engine) {
      buildEngineForm(v.engine);
      v = values('engine');
    }
    const args = { engine: v.engine, model: v.model };
    for (const f of engineFields) {
      const x = v[f.name];
      if (x === undefined || x === '') continue;
      // A switch's select says "true" / "false"; any other text (from a link) goes as given, for the library to refuse.
      args[f.name] = f.type === 'boolean' && (x === 'true' || x === 'false') ? x === 'true' : x;
    }
    const r = call('engine', args);
    const e = r.engine;
    document.getElementById('engine-report').textContent = r.text;
    document.getElementById('engine-json').textContent = JSON.stringify(e, EXACT_JSON ? rawBigInts : undefined, 1);
    // Every figure of the engine's JSON: the engine's headline ones first, then the rest as the library orders them.
    const scalar = (k) => e[k] === null || typeof e[k] !== 'object';
    const first = (ENGINE_FIRST[e.engine] || []).filter((k) => k in e && scalar(k));
    const rest = Object.keys(e).filter((k) => scalar(k) && !first.includes(k) && !['engine', 'model', 'schema'].includes(k));
    summary(document.getElementById('engine-summary'), [
      ['engine', num('engine', e.engine, 'text'), ' on ', num('model', e.model, 'text')],
      ...[...first, ...rest].map((k) => [k.replace(/_/g, ' '), ...figure(k, k, e[k])]),
    ]);
    // Per-group lists (vLLM's KV cache groups, llama.cpp's caches, TensorRT-LLM's windows): one table each.
    const tables = document.getElementById('engine-tables');
    tables.replaceChildren();
    for (const [k, rows] of Object.entries(e)) {
      if (!Array.isArray(rows) || !rows.length || typeof rows[0] !== 'object') continue;
      const cols = [...new Set(rows.flatMap((x) => Object.keys(x)))];
      tables.append(el('div', { class: 'table-wrap' }, el('table', { id: `engine-${k}` },
        el('caption', { text: k.replace(/_/g, ' ') }),
        el('thead', {}, el('tr', {}, ...cols.map((c) => el('th', { scope: 'col', text: c.replace(/_/g, ' ') })))),
        el('tbody', {}, ...rows.map((x, i) => el('tr', {}, ...cols.map((c) => el('td', {},
          ...(c in x ? figure(`${k}.${i}.${c}`, c, x[c], false) : ['—'])))))))));
    }
  },

  check(v) {
    // kvplan check's options (it has no field table): each form field under its own name.
    const args = {};
    for (const k of ['command', 'gpu', 'gpus', 'model', 'require_concurrency', 'require_context', 'gpu_memory', 'weights',
      'engine_version', 'strict', 'gpu_file', 'engine_log']) if (v[k] !== undefined && v[k] !== '') args[k] = v[k];
    const r = call('check', args);
    const c = r.check;
    const h = document.getElementById('check-headline');
    h.replaceChildren(num('verdict', c.verdict, 'text'), ' — ', c.passed ? 'the deployment starts and meets the requirements.' : c.reason);
    h.className = 'headline ' + (c.passed ? 'good' : 'bad');
    summary(document.getElementById('check-summary'), [
      ['passed', num('passed', c.passed, 'text')],
      ['exit code', num('exit_code', c.exit_code), ' (strict: ', num('strict', c.strict, 'text'), ')'],
      ['budget model', num('budget_model', c.budget_model, 'text'), '; calibrated by a start-up log: ', num('calibrated', c.calibrated, 'text')],
      ['device memory', num('device_memory.low_bytes', c.device_memory.low_bytes, 'human'), ' to ', num('device_memory.high_bytes', c.device_memory.high_bytes, 'human')],
      ['engine', num('engine', c.engine, 'text')],
      ['model', num('model', c.model, 'text')],
      ['deployment', num('gpus', c.gpus), ' x ', num('gpu', c.gpu, 'text'), ' (tp ', num('tp', c.tp), ', pp ', num('pp', c.pp), ')'],
      ['GPUs needed', num('gpus_needed', c.gpus_needed)],
      ['starts', num('starts', c.starts, 'text')],
      ['memory per GPU', num('per_gpu.memory_bytes', c.per_gpu.memory_bytes, 'human')],
      ['weights per GPU', num('per_gpu.weights_bytes', c.per_gpu.weights_bytes, 'human')],
      ['KV budget per GPU', num('per_gpu.kv_budget_bytes', c.per_gpu.kv_budget_bytes, 'human')],
      ['KV cache tokens', num('kv_cache_tokens', c.kv_cache_tokens)],
      ['context', num('context', c.context)],
      ['max concurrency', num('max_concurrency_ratio', c.max_concurrency_ratio, 'x')],
      ['longest context that fits', num('max_fitting_context', c.max_fitting_context)],
    ]);
    document.getElementById('check-report').textContent = r.text;
  },

  simulate(v) {
    // kvplan simulate's launch-command form (it has no field table): the command, the GPU, the
    // workload spec and the seed go to the library as given; "engine" only picks SIM_TEMPLATES.
    const args = {};
    for (const k of ['command', 'gpu', 'model', 'workload', 'seed']) if (v[k] !== undefined && v[k] !== '') args[k] = v[k];
    const r = call('simulate', args);
    const s = r.simulate;
    window.kvplanSimulate = s;  // read by the browser tests
    const h = document.getElementById('simulate-headline');
    h.replaceChildren(num('engine', s.engine, 'text'), ': ', num('finished', s.finished), ' of ', num('requests', s.requests),
      ' requests finished (', num('rejected', s.rejected), ' rejected) in ', num('makespan_s', s.makespan_s, 'seconds'), ', ',
      num('preemptions', s.preemptions), ' preemptions.');
    const pct = (key, label) => [label, 'p50 ', num(`${key}.p50`, s[key].p50, 'seconds'), ', p90 ', num(`${key}.p90`, s[key].p90, 'seconds'),
      ', p99 ', num(`${key}.p99`, s[key].p99, 'seconds')];
    summary(document.getElementById('simulate-summary'), [
      ['model on GPU', num('model', s.model, 'text'), ' on ', num('gpu', s.gpu, 'text')],
      ['pool', num('num_blocks', s.num_blocks), ' blocks of ', num('block_size', s.block_size), ' tokens'],
      ['peak blocks used', num('peak_blocks', s.peak_blocks)],
      ['peak running', num('peak_running', s.peak_running), ', peak waiting ', num('peak_waiting', s.peak_waiting)],
      pct('ttft_s', 'TTFT'), pct('tpot_s', 'TPOT'), pct('e2e_s', 'end to end'),
      ['throughput', num('throughput.requests_per_s', s.throughput.requests_per_s, 'real'), ' req/s, ',
        num('throughput.output_tokens_per_s', s.throughput.output_tokens_per_s, 'rate'), ' output'],
      ['prefix cache hit rate', num('prefix_cache.hit_rate', s.prefix_cache.hit_rate, 'ratio'), ' (',
        num('prefix_cache.hit_tokens', s.prefix_cache.hit_tokens), ' of ', num('prefix_cache.query_tokens', s.prefix_cache.query_tokens), ' tokens)'],
      ['steps', num('steps', s.steps)],
      ['step time', num('step_time_model', s.step_time_model, 'text')],
    ]);
    const t = s.timeline;
    const line = (label, key, color, axis) => ({ label, yAxisID: axis, borderColor: color, backgroundColor: color, pointRadius: 0,
      borderWidth: 1.5, data: t.map((p) => ({ x: p.t_s, y: plotted(p[key]) })) });
    chart('chart-simulate', {
      type: 'line',
      data: { datasets: [line('KV blocks used', 'blocks_used', '#3b6fb6', 'blocks'), line('running', 'running', '#2e9e5b', 'requests'),
        line('waiting', 'waiting', '#c0392b', 'requests')] },
      options: { scales: { x: { type: 'linear', title: { display: true, text: 'time (s, estimated)' } },
        blocks: { position: 'left', beginAtZero: true, max: plotted(s.num_blocks), title: { display: true, text: 'KV blocks' } },
        requests: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: 'requests' } } } },
    });
    document.getElementById('simulate-report').textContent = r.text;
    document.getElementById('simulate-json').textContent = JSON.stringify(s, EXACT_JSON ? rawBigInts : undefined, 2);
  },
};

// The Simulate panel's engine picker fills in an example launch command (the engine's own flags)
// and, for llama-server (whose command names a GGUF file), kvplan's model.
const SIM_TEMPLATES = {
  vllm: ['vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192', ''],
  sglang: ['python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8192', ''],
  'llama.cpp': ['llama-server --ctx-size 16384 --parallel 4', 'meta-llama/Llama-3.1-8B'],
  trtllm: ['trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192', ''],
};

// The figures `kvplan engine --json` leads with, per engine (the rest follow in the JSON's order).
const ENGINE_FIRST = {
  vllm: ['starts', 'kv_cache_tokens', 'num_blocks', 'max_concurrency', 'max_model_len', 'max_fitting_len', 'available_kv_bytes', 'kv_cache_bytes'],
  'llama.cpp': ['total_bytes', 'kv_bytes', 'state_bytes', 'n_ctx', 'n_seq_max', 'cells', 'swa_cells'],
  sglang: ['starts', 'max_total_num_tokens', 'max_running_requests', 'max_concurrency', 'context_length', 'rest_bytes', 'kv_bytes'],
  trtllm: ['starts', 'max_tokens', 'blocks', 'max_concurrency', 'max_seq_len', 'kv_memory_bytes'],
  ollama: ['fully_offloaded', 'layers_offload', 'layers_model', 'num_ctx', 'num_parallel', 'kv_bytes', 'graph_full_bytes', 'required_full_bytes'],
};
// One JSON value as shown: byte counts exact and in GB/GiB, counts with separators, a concurrency as
// a multiple, other numbers as they are, lists and text as text.
function figure(path, key, value, human = true) {
  const isInt = typeof value === 'bigint' || Number.isInteger(value);
  if (isInt && key.endsWith('_bytes')) return human ? [num(path, value, 'bytes'), ' = ', num(path, value, 'human')] : [num(path, value, 'bytes')];
  if (isInt) return [num(path, value)];
  if (typeof value === 'number') return [num(path, value, key === 'max_concurrency' ? 'x' : 'real')];
  if (Array.isArray(value)) return [num(path, value, 'list')];
  return [num(path, value, 'text')];
}

const KIND_COLORS = { full_attention: '#3b6fb6', sliding_attention: '#6baed6', chunked_attention: '#9ecae1', mla: '#2e9e5b',
  mamba: '#8e44ad', linear_attention: '#b07cc6', short_conv: '#e0a100', shared_kv: '#bbb', none: '#ddd' };

function compareModels() {
  return [...document.querySelectorAll('#compare-models input:checked')].map((c) => c.value);
}

// --- the request forms from the library's field tables -------------------------------------
// kvplan_call('fields') is request_fields(verb): the same list as the CLI's flags and
// kvplan.fields(verb). A panel's own inputs must be table fields; the rest are built here.
// The Model panel's size options are request_fields("size") the same way.
let planFields = [], sizeFields = [];
function buildForm(panel, verb, boxId, own) {
  const table = call('fields', { verb }).fields;
  const names = new Set(table.map((f) => f.name));
  const form = panelEl(panel).querySelector('form');
  const present = new Set([...form.querySelectorAll('[name]')].map((e) => e.name));
  for (const n of present) if (!own.includes(n) && !names.has(n)) throw new Error(`the ${panel} form's field "${n}" is not a ${verb} option (request_fields)`);
  const box = document.getElementById(boxId);
  for (const f of table) {
    if (present.has(f.name)) continue;
    const input = el('input', { name: f.name, value: '', placeholder: f.default ?? 'unset', 'data-type': f.type, title: f.help });
    if (f.type === 'dtype') input.setAttribute('list', 'dtype-names');
    if (f.type === 'tokens') input.setAttribute('list', 'token-presets');
    box.append(el('label', {}, `${f.cli_flag}${f.unit ? ` (${f.unit})` : ''}`, input, el('small', { text: f.help })));
  }
  return table;
}
// The Engine panel's options: kvplan_call('fields', {verb: 'engine.vllm'}) is engine_fields(), the
// table `kvplan engine`'s flags and kvplan.engine()'s keywords come from. Inputs are named by the
// table's names; a switch is a select (blank = the default, true, false).
let engineFields = [], engineBuiltFor = null, gpuCatalog = [];
function buildEngineForm(engine) {
  const box = document.getElementById('engine-fields');
  box.replaceChildren();
  engineFields = [];
  engineBuiltFor = null;
  window.kvplanEngineFields = engineFields;
  const table = call('fields', { verb: 'engine.' + engine }).fields;  // an unknown engine: the library's error
  const own = ['engine', 'model', 'gpu'];
  for (const f of table) {
    if (own.includes(f.name)) throw new Error(`the ${engine} table's field "${f.name}" clashes with the Engine panel's own`);
    const flags = [f.cli_flag, ...(f.cli_aliases || [])].join(', ');
    let input;
    if (f.type === 'boolean') {
      input = el('select', { name: f.name, 'data-type': f.type, title: f.help },
        el('option', { value: '', text: `default (${f.default})` }), el('option', { value: 'true', text: 'true' }), el('option', { value: 'false', text: 'false' }));
    } else {
      input = el('input', { name: f.name, value: '', placeholder: f.default ?? 'unset', 'data-type': f.type, title: f.help });
      if (f.type === 'tokens') input.setAttribute('list', 'token-presets');
    }
    box.append(el('label', {}, `${f.name}${f.unit ? ` (${f.unit})` : ''}`, input,
      el('small', { text: `${f.help} · ${flags}${f.type === 'boolean' ? ' (a switch: turns the default over)' : ''}` })));
  }
  engineFields = table;
  engineBuiltFor = engine;
  window.kvplanEngineFields = engineFields;  // read by the browser tests
  fillGpuMemory();
}
function tryBuildEngineForm() {
  try { buildEngineForm(panelEl('engine').querySelector('[name=engine]').value); } catch (err) { if (!(err instanceof KvplanError)) throw err; }
}
// The GPU picker writes the catalog's device memory (memory_bytes, as the runtime reports it) into the
// engine's gpu_memory_bytes option; it is no option itself (`kvplan engine` takes --gpu-memory).
function fillGpuMemory() {
  const g = gpuCatalog.find((x) => x.name === panelEl('engine').querySelector('[name=gpu]').value);
  const mem = panelEl('engine').querySelector('[name=gpu_memory_bytes]');
  if (g && mem) mem.value = String(g.memory_bytes);
}

function buildRequestForms() {
  planFields = buildForm('fit', 'plan', 'fit-fields', ['model', 'gpu_file']);
  sizeFields = buildForm('model', 'size', 'model-fields', ['model', 'config', 'upload']);
  window.kvplanPlanFields = planFields;  // read by the browser tests
  window.kvplanSizeFields = sizeFields;
  buildEngineForm('vllm');
}

// --- start-up ------------------------------------------------------------------------------
function fillPickers() {
  const models = call('models').models.map((m) => m.id);
  const dtypeList = call('dtypes');
  const dtypes = dtypeList.dtypes.map((d) => d.name);
  const presets = dtypeList.weight_presets || [];
  const gpus = call('gpus').gpus;
  gpuCatalog = gpus;
  const opt = (value, text) => el('option', { value, text: text || value });
  for (const s of document.querySelectorAll('select[data-models]')) s.replaceChildren(...models.map((m) => opt(m)));
  for (const s of document.querySelectorAll('select[data-dtypes]')) s.replaceChildren(opt('auto', 'auto (model dtype)'),
    ...(s.name === 'weight_dtype' ? presets.map((d) => opt(d, `${d} (preset)`)) : []),
    ...dtypes.filter((d) => s.name !== 'weight_dtype' || !presets.some((p) => p.toLowerCase() === d)).map((d) => opt(d)));
  for (const s of document.querySelectorAll('select[data-gpus]')) s.replaceChildren(...gpus.map((g) => opt(g.name, `${g.name} (${g.memory_marketing})`)));
  // The Fit panel also plans on a custom device: no catalog entry, --gpu-memory (and bandwidth) below.
  panelEl('fit').querySelector('[name=gpu]').append(opt('', 'custom (set --gpu-memory below)'));
  panelEl('check').querySelector('[name=gpu]').append(opt('', 'custom (set --gpu-memory below)'));
  panelEl('engine').querySelector('[name=gpu]').prepend(opt('', 'none (type gpu_memory_bytes)'));
  panelEl('simulate').querySelector('[name=model]').append(...models.map((m) => opt(m)));
  document.getElementById('dtype-names').replaceChildren(opt('auto'), ...dtypes.map((d) => opt(d)));
  const pick = (p, name, value) => { const f = panelEl(p).querySelector(`[name=${name}]`); if ([...f.options].some((o) => o.value === value)) f.value = value; };
  pick('model', 'model', 'meta-llama/Llama-3.1-70B');
  pick('model', 'kv_dtype', 'fp16');
  pick('fit', 'model', 'meta-llama/Llama-3.1-70B');
  pick('fit', 'kv_dtype', 'fp16');
  pick('speed', 'model', 'meta-llama/Llama-3.1-8B');
  pick('speed', 'kv_dtype', 'fp16');
  pick('loop', 'model', 'Qwen/Qwen3-0.6B');
  pick('engine', 'model', 'meta-llama/Llama-3.1-8B');
  const h100 = gpus.find((g) => g.aliases && g.aliases.map((a) => a.toLowerCase()).includes('h100'));
  for (const p of ['fit', 'speed', 'check', 'engine', 'simulate']) if (h100) pick(p, 'gpu', h100.name);
  fillGpuMemory();
  const box = document.getElementById('compare-models');
  box.replaceChildren(...models.map((m) => el('label', {}, Object.assign(el('input', { type: 'checkbox', value: m }), { checked: DEFAULT_COMPARE.includes(m) }), ' ' + m)));
}

function wire() {
  for (const p of PANELS) {
    defaults[p] = {};
    for (const f of fields(p)) defaults[p][f.name] = f.value;
    panelEl(p).addEventListener('change', () => { update(p); saveUrl(); });
    panelEl(p).addEventListener('input', (e) => { if (e.target.type === 'range' || e.target.tagName === 'SELECT') { update(p); saveUrl(); } });
  }
  const upload = panelEl('model').querySelector('[name=upload]');
  upload.addEventListener('change', async () => {
    const file = upload.files[0];
    if (!file) return;
    configSource = file.name;
    panelEl('model').querySelector('[name=config]').value = await file.text();
    update('model');
  });
  panelEl('model').querySelector('[name=config]').addEventListener('input', () => { configSource = ''; });
  document.getElementById('clear-config').addEventListener('click', () => {
    panelEl('model').querySelector('[name=config]').value = '';
    upload.value = '';
    update('model');
  });
  const simEngine = panelEl('simulate').querySelector('[name=engine]');
  simEngine.addEventListener('input', () => {
    const [command, model] = SIM_TEMPLATES[simEngine.value];
    panelEl('simulate').querySelector('[name=command]').value = command;
    panelEl('simulate').querySelector('[name=model]').value = model;
  });
  // Picking a GPU on the Engine panel fills its memory option (before the panel re-renders).
  panelEl('engine').querySelector('[name=gpu]').addEventListener('input', fillGpuMemory);
  panelEl('engine').querySelector('[name=gpu]').addEventListener('change', fillGpuMemory);
  const slider = panelEl('loop').querySelector('[name=step]');
  const step = (d) => { slider.value = String(Math.max(0, Math.min(Number(slider.max), Number(slider.value) + d))); update('loop'); saveUrl(); };
  document.getElementById('loop-prev').addEventListener('click', () => step(-1));
  document.getElementById('loop-next').addEventListener('click', () => step(1));
}

async function start() {
  try {
    lib = await createKvplan();
    document.getElementById('version').textContent = 'libkvplan ' + call('version').version + '.';
    buildRequestForms();
    fillPickers();
    wire();
    setupTabs();
    const tab = loadUrl();
    document.getElementById('loading').hidden = true;
    show(tab);
    document.body.dataset.ready = 'true';
  } catch (err) {
    document.getElementById('loading').textContent = 'Could not start: ' + err.message;
    document.body.dataset.ready = 'error';
  }
}
start();
