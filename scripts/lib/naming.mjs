// Name conversions of the generator. The spec writes names in PascalCase (`OrdineVista`);
// JSON uses camelCase (`ordineVista`), as ServiceStack's JsConfig.EmitCamelCaseNames did:
// only the first character is lowered.

/** `OrdineVista` -> `ordineVista`. */
export const camelCase = (name) => name.charAt(0).toLowerCase() + name.slice(1);

export const pascalCasePattern = /^[A-Z][A-Za-z0-9]*$/;
export const snakeCasePattern = /^[a-z][a-z0-9_]*$/;
