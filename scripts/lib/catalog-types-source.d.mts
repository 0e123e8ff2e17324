export interface CatalogVocabulary {
  readonly operatorKinds: readonly string[];
  readonly families: readonly string[];
}
export declare function readCatalogVocabulary(source: string): CatalogVocabulary;
