// The console's one stylesheet, served from /console/assets/console.css (the CSP's style-src 'self'; nothing inline).
export const CONSOLE_STYLE = `:root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #d8dce4; --accent: #1f5fbf; --bad: #a4262c; --warn: #8a5a00; --bg: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: 0.6rem 1.2rem; background: #fff; border-bottom: 1px solid var(--line); }
.bar h1 { font-size: 1.1rem; margin: 0 auto 0 0; }
.context { display: flex; flex-wrap: wrap; align-items: end; gap: 0.6rem; }
main { padding: 1rem 1.2rem 2rem; }
.views { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(34rem, 100%), 1fr)); }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 0.8rem 1rem 1rem; min-width: 0; overflow-x: auto; container-type: inline-size; }
/* Should a card ever scroll sideways, a shadow at the edge says so (it moves with the content: background-attachment local). */
section { background: linear-gradient(to right, #fff 30%, rgba(255, 255, 255, 0)) left / 2rem 100% no-repeat local, linear-gradient(to left, #fff 30%, rgba(255, 255, 255, 0)) right / 2rem 100% no-repeat local, radial-gradient(farthest-side at 0 50%, rgba(20, 24, 32, 0.25), transparent) left / 0.8rem 100% no-repeat scroll, radial-gradient(farthest-side at 100% 50%, rgba(20, 24, 32, 0.25), transparent) right / 0.8rem 100% no-repeat scroll, #fff; }
#sign-in { max-width: 26rem; margin: 2rem auto; }
section.wide { grid-column: 1 / -1; }
h3 { font-size: 0.95rem; margin: 1rem 0 0.3rem; overflow-wrap: anywhere; }
label.grow { flex: 1 1 18rem; }
td.wrap { overflow-wrap: anywhere; min-width: 8rem; }
td.actions button { padding: 0.2rem 0.55rem; margin: 0 0.3rem 0.3rem 0; }
h2 { font-size: 1rem; margin: 0 0 0.6rem; }
label, .field { display: inline-flex; flex-direction: column; gap: 0.2rem; font-size: 0.85rem; color: var(--muted); }
input, select { font: inherit; color: var(--ink); padding: 0.3rem 0.45rem; border: 1px solid #aab1bf; border-radius: 4px; background: #fff; }
button { font: inherit; padding: 0.3rem 0.8rem; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
button.secondary, #sign-out, .row button + button { background: #fff; color: var(--accent); }
button:disabled { opacity: 0.5; cursor: default; }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.stack { display: flex; flex-direction: column; gap: 0.7rem; }
.row { display: flex; flex-wrap: wrap; align-items: end; gap: 0.6rem; margin: 0.4rem 0; }
table { width: 100%; border-collapse: collapse; margin: 0.5rem 0; font-size: 0.88rem; }
caption { text-align: left; }
th, td { text-align: left; padding: 0.3rem 0.4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
td { overflow-wrap: break-word; }
td.email { overflow-wrap: anywhere; }
button, select { white-space: nowrap; }
input, select { max-width: 100%; }
#member-rows select { margin-right: 0.3rem; }
label.check { flex-direction: row; align-items: center; gap: 0.4rem; color: var(--ink); }
fieldset { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; border: 1px solid var(--line); border-radius: 4px; margin: 0; }
td.agent { overflow-wrap: anywhere; }
small.code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.75rem; color: var(--muted); white-space: nowrap; }
time[title] { text-decoration: underline dotted var(--line); }
tr.current td { background: #eef5ec; }
td.mono, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.8rem; }
.muted { color: var(--muted); font-size: 0.85rem; }
.error { color: var(--bad); margin: 0.3rem 0; min-height: 0; }
.error:empty, .notice:empty { display: none; }
.notice { margin: 0.6rem 1.2rem 0; padding: 0.4rem 0.7rem; background: #e8f0fc; border-radius: 4px; }
.warning { color: var(--warn); font-weight: 600; }
.state-on { color: #176b2c; font-weight: 600; }
.state-off { color: var(--muted); }
.state-bad { color: var(--bad); font-weight: 600; }
.plain { list-style: none; padding: 0; margin: 0.5rem 0; }
.plain li { display: flex; flex-wrap: wrap; align-items: center; gap: 0.6rem; padding: 0.35rem 0; border-bottom: 1px solid var(--line); }
progress { width: 10rem; }
dialog { border: 1px solid var(--line); border-radius: 6px; max-width: 36rem; padding: 1rem 1.2rem; }
dialog::backdrop { background: rgba(20, 24, 32, 0.45); }
.token { display: block; padding: 0.5rem; background: var(--bg); border: 1px dashed #aab1bf; word-break: break-all; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
[hidden] { display: none !important; }
/* A card too narrow for its table (a phone): each row becomes a stack of lines, each under its column's heading (the
   script sets data-label), so every button and field stays inside the card. */
@container (max-width: 34rem) {
  table, tbody, tr, td, caption { display: block; width: 100%; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { padding: 0.4rem 0; border-bottom: 1px solid var(--line); }
  td { border: 0; padding: 0.15rem 0; min-width: 0; }
  td.wrap { min-width: 0; }
  td[data-label]:not([data-label=""])::before { content: attr(data-label); display: block; font-size: 0.75rem; font-weight: 600; color: var(--muted); }
}
`;
