// Proof of work for the step-up captcha gate, in a Web Worker: finds a nonce
// such that SHA-256(challenge + ':' + nonce) starts with `difficulty` zero
// bits. Posts {type:'progress', tried} now and then and {type:'done', nonce, tried}.
/* global self, TextEncoder, crypto */
'use strict';
function zeroBits(bytes) {
  var bits = 0;
  for (var i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(bytes[i]) - 24;
  }
  return bits;
}
self.onmessage = async function (event) {
  var challenge = String(event.data.challenge);
  var difficulty = Number(event.data.difficulty);
  var encoder = new TextEncoder();
  for (var n = 0; ; n++) {
    var digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(challenge + ':' + n)));
    if (zeroBits(digest) >= difficulty) {
      self.postMessage({ type: 'done', nonce: String(n), tried: n + 1 });
      return;
    }
    if ((n + 1) % 500 === 0) self.postMessage({ type: 'progress', tried: n + 1 });
  }
};
