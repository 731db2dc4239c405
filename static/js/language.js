// The language switch (language_switch.html) keeps what was typed: before it leads to the same
// page in the other language, the values of the page's forms are kept in this tab's session
// storage, and that page puts them back by each field's name (the nth of a name to the nth), so
// that a field the other page has not (yet) got leaves the rest in place. A field put back sends
// the events a person's input sends, so that htmx loads what depends on it (a membership's
// sites); a value with no field or option yet (the site, the store) is put back once htmx has
// swapped them in. Passwords, files and the forms' one-time tokens are never kept.
(function () {
  "use strict";
  var SKIPPED = ["password", "file", "hidden", "submit", "button", "reset", "image"];

  // The page's address without its language: the same in English and in Welsh.
  function pageKey() {
    return "portal.typed:" + location.pathname.replace(/^\/cy(?=\/|$)/, "") + location.search;
  }

  function fieldsOf(form) {
    return Array.prototype.filter.call(form.elements, function (field) {
      return field.name && SKIPPED.indexOf(field.type) === -1 && !field.disabled;
    });
  }

  function valueOf(field) {
    if (field.type === "checkbox" || field.type === "radio") return field.checked;
    if (field.type === "select-multiple") {
      return Array.prototype.filter.call(field.options, function (option) {
        return option.selected;
      }).map(function (option) { return option.value; });
    }
    return field.value;
  }

  function put(field, value) {
    if (field.type === "checkbox" || field.type === "radio") {
      field.checked = value === true;
    } else if (field.type === "select-multiple") {
      Array.prototype.forEach.call(field.options, function (option) {
        option.selected = Array.isArray(value) && value.indexOf(option.value) !== -1;
      });
    } else if (typeof value === "string") {
      field.value = value;
    }
  }

  function same(one, other) {
    return JSON.stringify(one) === JSON.stringify(other);
  }

  // What a person's input sends (a radio sends it as it is checked, not as it is unchecked).
  function announce(field) {
    if (field.type === "radio" && !field.checked) return;
    ["input", "change"].forEach(function (type) {
      field.dispatchEvent(new Event(type, { bubbles: true }));
    });
  }

  // Puts the values kept by name back into the form's fields, and announces those it changed.
  // Adds to left the names, with all their values, that the form has no field for, or whose
  // select has no option for its value.
  function putInto(form, byName, left) {
    var fields = fieldsOf(form);
    var changed = [];
    Object.keys(byName).forEach(function (name) {
      var values = byName[name];
      var named = fields.filter(function (field) { return field.name === name; });
      if (!named.length) left[name] = values;
      named.slice(0, values.length).forEach(function (field, nth) {
        var before = valueOf(field);
        put(field, values[nth]);
        if (!same(valueOf(field), before)) changed.push(field);
        if (field.type.indexOf("select") === 0 && !same(valueOf(field), values[nth])) {
          left[name] = values;
        }
      });
    });
    changed.forEach(announce);
  }

  // Puts back each form's values (a form's by its place among the page's forms). Answers what
  // is left of them, or null when nothing is.
  function putAll(waiting) {
    var left = waiting.map(function (byName, index) {
      var formLeft = Object.create(null);
      if (document.forms[index]) putInto(document.forms[index], byName, formLeft);
      return formLeft;
    });
    var any = left.some(function (byName) { return Object.keys(byName).length; });
    return any ? left : null;
  }

  function keep() {
    var forms = Array.prototype.map.call(document.forms, function (form) {
      return fieldsOf(form).map(function (field) { return [field.name, valueOf(field)]; });
    });
    try {
      sessionStorage.setItem(pageKey(), JSON.stringify(forms));
    } catch (e) { /* storage full or refused: the switch still works, without them */ }
  }

  function kept() {
    var forms;
    try {
      forms = JSON.parse(sessionStorage.getItem(pageKey()) || "null");
      sessionStorage.removeItem(pageKey());
    } catch (e) { return []; }
    if (!Array.isArray(forms)) return [];
    return forms.map(function (pairs) {
      var byName = Object.create(null);
      (Array.isArray(pairs) ? pairs : []).forEach(function (pair) {
        if (Array.isArray(pair)) (byName[pair[0]] = byName[pair[0]] || []).push(pair[1]);
      });
      return byName;
    });
  }

  // What is left waits for the responses to the requests that htmx sent on hearing what was put
  // back (for the first of a response's new elements to have settled), until nothing is left
  // or nothing more was asked: a swap that someone else asked for is not waited for.
  function putBack() {
    var waiting = kept();
    var asked = [];
    function ask(event) { asked.push(event.detail.xhr); }
    function putAndAsk() {
      document.body.addEventListener("htmx:beforeRequest", ask);
      waiting = putAll(waiting);
      document.body.removeEventListener("htmx:beforeRequest", ask);
      if (!waiting || !asked.length) document.body.removeEventListener("htmx:afterSettle", settled);
    }
    function settled(event) {
      var nth = asked.indexOf(event.detail.xhr);
      if (nth === -1) return;
      asked.splice(nth, 1);
      putAndAsk();
    }
    document.body.addEventListener("htmx:afterSettle", settled);
    putAndAsk();
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest(".language-switch a")) keep();
  });
  // After htmx has started (its script comes first and also waits for the document), so that
  // it hears what is put back.
  if (document.readyState === "complete") {
    putBack();
  } else {
    document.addEventListener("DOMContentLoaded", putBack);
  }
})();
