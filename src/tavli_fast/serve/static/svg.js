// The one helper the board and the chart draw with: an SVG element with its attributes (and
// text), appended to its parent.
"use strict";

const Svg = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent, text) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  return { el };
})();
