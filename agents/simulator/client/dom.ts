/** A small element builder for the skins. */
export function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** Shows or hides an element the way the real sites do: by removing it from layout. */
export function show(element: HTMLElement, visible: boolean): void {
  element.style.display = visible ? '' : 'none';
}
