// Starts Swagger UI on the API's documentation page (templates/api/docs.html), with the
// address of the OpenAPI document its element names.
(function () {
  "use strict";
  const element = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({
    url: element.dataset.openapiUrl,
    domNode: element,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null, // its badge would be an image from elsewhere
  });
})();
