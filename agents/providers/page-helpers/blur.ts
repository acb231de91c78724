/**
 * In the page: a screenshot blurred everywhere but its controls, drawn on a canvas of the
 * helpers' own world that never joins the page. Fails rather than hand back a picture it
 * could not blur.
 */
import type { Helpers } from './types.js';

export function addBlur(h: Helpers): void {
  /** Enough to make body text of any size a smear at the screenshot's scale. */
  const RADIUS_CSS_PX = 12;

  h.blurShot = async (png, sharp) => {
    const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
    const image = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const scale = image.width / window.innerWidth;
    const canvas = new OffscreenCanvas(image.width, image.height);
    const g = canvas.getContext('2d')!;
    g.filter = `blur(${Math.ceil(RADIUS_CSS_PX * scale)}px)`;
    if (!g.filter.startsWith('blur')) throw new Error('This browser cannot blur a canvas.');
    g.drawImage(image, 0, 0);
    g.filter = 'none';
    for (const r of sharp) {
      const [x, y, w, hgt] = [r.x * scale, r.y * scale, r.w * scale, r.h * scale];
      g.drawImage(image, x, y, w, hgt, x, y, w, hgt);
    }
    const out = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
    let binary = '';
    for (let at = 0; at < out.length; at += 0x8000) binary += String.fromCharCode(...out.subarray(at, at + 0x8000));
    return btoa(binary);
  };
}
