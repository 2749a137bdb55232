// @vestibule/emails: the components e-mail templates and themes import (also under the names "@stackframe/emails"
// and "@react-email/components"). Loaded into every render context, so it runs with the template, not in the
// service. Keep it small, dependency-free (React only) and free of anything but plain markup.
"use strict";
const React = require("react");
const h = React.createElement;

let collected = null;

/** Called by the renderer before each render: the facts templates declare (<Subject>, <NotificationCategory>). */
exports.__beginRender = function beginRender() {
  collected = {};
  return collected;
};

function without(props, names) {
  const out = {};
  for (const key of Object.keys(props || {})) if (!names.includes(key)) out[key] = props[key];
  return out;
}
function styled(props, base, names) {
  const rest = without(props, ["style", "children"].concat(names || []));
  rest.style = Object.assign({}, base, props && props.style);
  return rest;
}

/** <Subject value="..."/>: the e-mail's subject. Renders nothing. */
function Subject(props) {
  if (collected) collected.subject = String(props.value);
  return null;
}
/** <NotificationCategory value="Transactional" | "Marketing"/>: the category it is sent in. Renders nothing. */
function NotificationCategory(props) {
  if (collected) collected.notificationCategory = String(props.value);
  return null;
}

function Html(props) {
  const rest = without(props, ["children"]);
  return h("html", Object.assign({ lang: "en", dir: "ltr" }, rest), props.children);
}
function Head(props) {
  return h(
    "head",
    without(props, ["children"]),
    h("meta", { httpEquiv: "Content-Type", content: "text/html; charset=UTF-8" }),
    h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
    props.children,
  );
}
/** Preheader text: shown by mail clients in the inbox list, hidden in the message. */
function Preview(props) {
  return h(
    "div",
    { "data-skip-in-text": "true", style: { display: "none", overflow: "hidden", lineHeight: "1px", opacity: 0, maxHeight: 0, maxWidth: 0 } },
    props.children,
  );
}
function Body(props) {
  return h("body", styled(props, { margin: 0, padding: 0 }), props.children);
}
function table(props, base, cellStyle) {
  const rest = styled(props, base);
  return h(
    "table",
    Object.assign({ align: "center", width: "100%", role: "presentation", cellSpacing: "0", cellPadding: "0", border: 0 }, rest),
    h("tbody", null, h("tr", { style: { width: "100%" } }, h("td", cellStyle ? { style: cellStyle } : null, props.children))),
  );
}
/** A centred column at most 600 px wide. */
function Container(props) {
  return table(props, { maxWidth: "37.5em" });
}
function Section(props) {
  return table(props, {});
}
function Row(props) {
  const rest = styled(props, {});
  return h(
    "table",
    Object.assign({ align: "center", width: "100%", role: "presentation", cellSpacing: "0", cellPadding: "0", border: 0 }, rest),
    h("tbody", { style: { width: "100%" } }, h("tr", { style: { width: "100%" } }, props.children)),
  );
}
function Column(props) {
  return h("td", styled(props, {}), props.children);
}
function Heading(props) {
  const as = ["h1", "h2", "h3", "h4", "h5", "h6"].includes(props.as) ? props.as : "h1";
  return h(as, styled(props, {}, ["as"]), props.children);
}
function Text(props) {
  return h("p", styled(props, { fontSize: "14px", lineHeight: "24px", margin: "16px 0" }), props.children);
}
function Link(props) {
  return h("a", Object.assign({ target: "_blank" }, styled(props, { color: "#067df7", textDecoration: "none" })), props.children);
}
function Button(props) {
  const rest = Object.assign({ target: "_blank" }, styled(props, { display: "inline-block", lineHeight: "100%", textDecoration: "none", padding: "12px 20px" }));
  return h("a", rest, h("span", null, props.children));
}
function Hr(props) {
  return h("hr", styled(props, { width: "100%", border: "none", borderTop: "1px solid #eaeaea" }));
}
function Img(props) {
  return h("img", Object.assign({ alt: "" }, styled(props, { display: "block", outline: "none", border: "none", textDecoration: "none" })));
}
/** Accepted so that Tailwind-styled templates render; class names are kept but no CSS is generated. */
function Tailwind(props) {
  return h(React.Fragment, null, props.children);
}

/**
 * <ProjectLogo data={projectLogos} mode="light" | "dark"/> of the published product's themes: the project's logo
 * (full logo first, dark-mode variants in dark mode) when the theme was given logos, else nothing.
 */
function ProjectLogo(props) {
  const d = (props && props.data) || {};
  const dark = props && props.mode === "dark";
  const src = (dark && (d.logoFullDarkModeUrl || d.logoDarkModeUrl)) || d.logoFullUrl || d.logoUrl;
  if (typeof src !== "string" || src === "") return null;
  return h("img", { src, alt: "Logo", style: { display: "block", height: "32px", margin: "0 auto 16px" } });
}

Object.assign(exports, {
  Subject, NotificationCategory, Html, Head, Preview, Body, Container, Section, Row, Column, Heading, Text, Link,
  Button, Hr, Img, Tailwind, ProjectLogo,
});
