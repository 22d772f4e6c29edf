// The captcha island (decision 170), loaded next to the reCAPTCHA widget: Google's script renders the
// widgets present when it loads; a form the form island swaps in (a refused post) brings an empty
// `.g-recaptcha`, rendered here, without the JS-off fallback the swap brought along. A page that had no
// widget gets this island and Google's script from the swap itself (client/islands/enhance.ts).
type Grecaptcha = { render(element: Element, options: { sitekey: string }): unknown };

function renderNew(): void {
  // A form parsed off-document (the form island's swap) has its <noscript> fallback as live elements: drop
  // them, or their empty field would be posted beside the widget's.
  document.querySelectorAll('.captcha noscript').forEach((fallback) => fallback.remove());
  const api = (window as unknown as { grecaptcha?: Grecaptcha }).grecaptcha;
  if (!api || !api.render) return;
  document.querySelectorAll<HTMLElement>('.g-recaptcha').forEach((element) => {
    if (element.childElementCount === 0) api.render(element, { sitekey: element.dataset.sitekey || '' });
  });
}

document.addEventListener('islands:mount', renderNew);
// Loaded by a swap (the form island runs a fragment's new scripts): the fallback it brought goes now.
renderNew();
