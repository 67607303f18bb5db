/**
 * What the report uses of pdfmake 0.3's server API. Not @types/pdfmake: it references the DOM lib,
 * which then types every file of ours (fetch bodies, timers) as a browser's.
 */
declare module 'pdfmake' {
  /** A node of a document definition: text, a list of nodes, or an object (`{ text }`, `{ table }`, `{ stack }`…). */
  export type Content = string | readonly Content[] | { readonly [key: string]: unknown };
  export type TableCell = Content;

  export interface DocumentDefinition {
    content: Content;
    readonly [key: string]: unknown;
  }

  export interface CreatedPdf {
    getBuffer(): Promise<Buffer>;
  }

  interface PdfMake {
    createPdf(document: DocumentDefinition): CreatedPdf;
    setFonts(fonts: Record<string, Record<'normal' | 'bold' | 'italics' | 'bolditalics', string>>): void;
    setUrlAccessPolicy(allowed: (url: string) => boolean): void;
    setLocalAccessPolicy(allowed: (path: string) => boolean): void;
  }

  const pdfmake: PdfMake;
  export default pdfmake;
}
