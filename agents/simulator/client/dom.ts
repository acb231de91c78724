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

/**
 * The text of one line of a rich editor (a Quill line, a Lexical paragraph): a lone
 * trailing `<br>` is an empty line's placeholder, other `<br>`s are soft line breaks.
 */
export function lineText(block: Element): string {
  let text = '';
  const walk = (node: Node) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) text += child.textContent ?? '';
      else if (child instanceof HTMLBRElement) text += child === block.lastChild ? '' : '\n';
      else walk(child);
    }
  };
  walk(block);
  return text;
}
