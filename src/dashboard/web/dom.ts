/** A few DOM helpers: elements from data (text is always text, never HTML), and times for people. */

type Child = Node | string | number | false | null | undefined | ReadonlyArray<Child>
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>

/** `h("a.card", { href }, "text", child)`: a tag with optional `.class` parts, attributes, `on*` listeners, children. */
export const h = (spec: string, attributes: Attributes = {}, ...children: ReadonlyArray<Child>): HTMLElement => {
  const [tag, ...classes] = spec.split(".")
  const element = document.createElement(tag || "div")
  if (classes.length > 0) element.className = classes.join(" ")
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (name === "class") element.classList.add(...String(value).split(" ").filter(Boolean))
    else element.setAttribute(name, value === true ? "" : String(value))
  }
  append(element, children)
  return element
}

const append = (parent: Node, children: ReadonlyArray<Child>) => {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

/** Replaces everything inside `parent`. */
export const replaceChildren = (parent: Element, ...children: ReadonlyArray<Child>) => {
  parent.replaceChildren()
  append(parent, children)
}

/** "now", "12s", "5m", "3h", "2d": how long ago `iso` was. */
export const ago = (iso: string, now = Date.now()): string => {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (Number.isNaN(seconds)) return "?"
  if (seconds < 5) return "now"
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`
  return `${Math.floor(seconds / 86400)}d`
}

/** A relative time that stays current: `refreshTimes` rewrites every one on the page. */
export const time = (iso: string, suffix = " ago") =>
  h("time", { datetime: iso, title: new Date(iso).toLocaleString(), "data-suffix": suffix }, ago(iso) === "now" ? "just now" : `${ago(iso)}${suffix}`)

export const refreshTimes = (root: ParentNode = document) => {
  for (const element of root.querySelectorAll<HTMLTimeElement>("time[datetime]")) {
    const text = ago(element.dateTime)
    element.textContent = text === "now" ? "just now" : `${text}${element.dataset.suffix ?? ""}`
  }
}

/** Words for a status or activity: `needs_input` → "needs input". */
export const words = (value: string) => value.replace(/_/g, " ")
