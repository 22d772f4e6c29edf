// The captcha island (decision 170), loaded next to the reCAPTCHA widget: Google's script renders the
// widgets present when it loads; a form the form island swaps in (a refused post) brings an empty
// `.g-recaptcha`, rendered here (the form island drops the JS-off fallback it came with). A page that had
// no widget gets this island and Google's script from the swap itself (client/islands/enhance.ts).
type Grecaptcha = { render(element: Element, options: { sitekey: string }): unknown };

function renderNew(): void {
  const api = (window as unknown as { grecaptcha?: Grecaptcha }).grecaptcha;
  if (!api || !api.render) return;
  document.querySelectorAll<HTMLElement>('.g-recaptcha').forEach((element) => {
    if (element.childElementCount === 0) api.render(element, { sitekey: element.dataset.sitekey || '' });
  });
}

document.addEventListener('islands:mount', renderNew);
// Loaded by a swap (the form island runs a fragment's new scripts), maybe after Google's script.
renderNew();
