export declare const camelCase: (name: string) => string;
export declare const pascalCasePattern: RegExp;
export declare const snakeCasePattern: RegExp;
