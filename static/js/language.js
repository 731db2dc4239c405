// The language switch (language_switch.html) keeps what was typed: before it leads to the same
// page in the other language, the values of the page's forms are kept in this tab's session
// storage, and that page puts them back by each field's name (the nth of a name to the nth), so
// that a field the other page has not (yet) got leaves the rest in place. Passwords, files and
// the forms' one-time tokens are never kept.
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

  function keep() {
    var forms = Array.prototype.map.call(document.forms, function (form) {
      return fieldsOf(form).map(function (field) { return [field.name, valueOf(field)]; });
    });
    try {
      sessionStorage.setItem(pageKey(), JSON.stringify(forms));
    } catch (e) { /* storage full or refused: the switch still works, without them */ }
  }

  function putBack() {
    var forms;
    try {
      forms = JSON.parse(sessionStorage.getItem(pageKey()) || "null");
      sessionStorage.removeItem(pageKey());
    } catch (e) { return; }
    if (!Array.isArray(forms)) return;
    forms.forEach(function (kept, index) {
      var form = document.forms[index];
      if (!form || !Array.isArray(kept)) return;
      var byName = {};
      kept.forEach(function (pair) {
        if (!Array.isArray(pair)) return;
        (byName[pair[0]] = byName[pair[0]] || []).push(pair[1]);
      });
      fieldsOf(form).forEach(function (field) {
        var values = byName[field.name];
        if (values && values.length) put(field, values.shift());
      });
    });
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest(".language-switch a")) keep();
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", putBack);
  } else {
    putBack();
  }
})();
