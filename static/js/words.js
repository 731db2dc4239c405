// The scripts' words in the page's language: Django's JavaScript catalogue (/jsi18n/, or
// /cy/jsi18n/ on a Welsh page; locale/cy/LC_MESSAGES/djangojs.po), which each page that loads
// these scripts loads before them, and which the offline checker's worker keeps. Where a page
// has not loaded it, the words are the English they are written in.
// A string marked here is found by `make messages` (xgettext): write it whole, in double
// quotes, with its values named (%(name)s) and given to `interpolate`.
"use strict";

const catalogue = window.django;

export const gettext = (text) => (catalogue ? catalogue.gettext(text) : text);

export const ngettext = (one, many, count) => {
  if (catalogue) {
    return catalogue.ngettext(one, many, count);
  }
  return count === 1 ? one : many;
};

// `format` with each %(name)s replaced by values[name].
export const interpolate = (format, values) =>
  format.replace(/%\((\w+)\)s/g, (placeholder, name) =>
    name in values ? String(values[name]) : placeholder,
  );

// The page's language, as its `lang` names it (en-GB, cy).
export const pageLanguage = () => document.documentElement.lang || "en-GB";
