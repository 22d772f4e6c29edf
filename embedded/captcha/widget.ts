// The browser side of the reCAPTCHA v2 stand-in: what `api.js` and the widget frame do, in miniature.
// Like Google's, the checkbox lives in a frame of the captcha origin (the page's CSP names it in frame-src
// only) and hands its token to the page by postMessage; api.js puts it in the hidden
// `g-recaptcha-response` textarea inside the `.g-recaptcha` element, so the form posts it.

/** api.js: renders every `.g-recaptcha` (and any later one given to grecaptcha.render), like Google's. */
export function apiScript(origin: string): string {
  return `(function(){
// The origin the page loaded this script from (localhost or 127.0.0.1 alike), else the stand-in's own.
var me=document.currentScript;var origin=me&&me.src?new URL(me.src).origin:${JSON.stringify(origin)};
var widgets=[];
function render(el){
  if(!el||el.getAttribute('data-stand-in-rendered'))return;
  el.setAttribute('data-stand-in-rendered','1');
  var area=document.createElement('textarea');
  area.name='g-recaptcha-response';area.id='g-recaptcha-response'+(widgets.length||'');area.hidden=true;
  var frame=document.createElement('iframe');
  frame.src=origin+'/recaptcha/api2/anchor?k='+encodeURIComponent(el.getAttribute('data-sitekey')||'')+'&w='+widgets.length;
  frame.title='reCAPTCHA';frame.width='304';frame.height='78';frame.setAttribute('frameborder','0');
  el.appendChild(frame);el.appendChild(area);
  widgets.push({el:el,area:area,frame:frame});
  return widgets.length-1;
}
addEventListener('message',function(e){
  if(e.origin!==origin||!e.data||e.data.type!=='stand-in-recaptcha')return;
  var w=widgets[e.data.widget];if(!w)return;
  w.area.value=e.data.token;
  var cb=w.el.getAttribute('data-callback');if(cb&&typeof window[cb]==='function')window[cb](e.data.token);
});
window.grecaptcha={render:render,reset:function(i){var w=widgets[i||0];if(w){w.area.value='';w.frame.src=w.frame.src;}},getResponse:function(i){var w=widgets[i||0];return w?w.area.value:'';},ready:function(f){f();}};
function all(){document.querySelectorAll('.g-recaptcha').forEach(render);}
if(document.readyState==='loading')document.addEventListener('DOMContentLoaded',all);else all();
})();`;
}

/** The widget frame: one checkbox; ticking it asks the stand-in for a token and posts it to the page. */
export function anchorPage(widget: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>reCAPTCHA stand-in</title>
<style>body{margin:0;font:14px system-ui,sans-serif}label{display:flex;gap:10px;align-items:center;border:1px solid #d3d3d3;border-radius:3px;background:#f9f9f9;padding:0 12px;height:74px;box-sizing:border-box;cursor:pointer}input{width:24px;height:24px}small{margin-left:auto;color:#555}</style></head>
<body><label><input type="checkbox" id="robot"> I'm not a robot <small>stand-in</small></label>
<script>
document.getElementById('robot').addEventListener('change',function(e){
  if(!e.target.checked)return;
  fetch('/recaptcha/api2/token',{method:'POST'}).then(function(r){return r.json()}).then(function(b){
    parent.postMessage({type:'stand-in-recaptcha',widget:${JSON.stringify(Number(widget) || 0)},token:b.token},'*');
    e.target.disabled=true;
  });
});
</script></body></html>`;
}

/** Google's JS-off fallback, in miniature: tick the box, get a code to paste into the page's textarea. */
export function fallbackPage(token?: string): string {
  const body = token
    ? `<p>Copy this code into the page:</p><textarea readonly rows="4" cols="36" id="fallback-token">${token}</textarea>`
    : `<form method="post"><label><input type="checkbox" name="robot" value="1" required> I'm not a robot</label> <button type="submit">Verify</button></form>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>reCAPTCHA stand-in</title></head><body>${body}</body></html>`;
}
