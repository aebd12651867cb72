// @ts-check
// The page's views (Chat, Batches) as WAI-ARIA tabs: a click or Enter chooses one; the arrow keys,
// Home and End move between the tabs (one tab stop for the whole list).
import { expectElement } from "./dom.js";

/**
 * Wires the tabs of `tablist`, each naming its panel in `aria-controls`; `onSelect` hears which panel is shown.
 * @param {HTMLElement} tablist
 * @param {(panelId: string) => void} onSelect
 */
export function setUpTabs(tablist, onSelect) {
  const tabs = [...tablist.querySelectorAll("[role=tab]")].map((tab) => expectElement(tab, HTMLButtonElement, "a tab"));
  const panelOf = (/** @type {HTMLButtonElement} */ tab) => tab.getAttribute("aria-controls") ?? "";

  /** @param {HTMLButtonElement} chosen */
  function select(chosen) {
    for (const tab of tabs) {
      const selected = tab === chosen;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
      expectElement(document.getElementById(panelOf(tab)), HTMLElement, `#${panelOf(tab)}`).hidden = !selected;
    }
    onSelect(panelOf(chosen));
  }

  /** @type {Record<string, (index: number) => number>} */
  const moves = {
    ArrowRight: (index) => (index + 1) % tabs.length,
    ArrowLeft: (index) => (index - 1 + tabs.length) % tabs.length,
    Home: () => 0,
    End: () => tabs.length - 1,
  };
  for (const tab of tabs) {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (event) => {
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      const next = tabs[move(tabs.indexOf(tab))];
      if (next) {
        next.focus();
        select(next);
      }
    });
  }
}
