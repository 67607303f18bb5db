import pdfmake from 'pdfmake';

/** The PDF standard fonts the report uses: pdfkit has their metrics built in, so no file is read or fetched. */
const STANDARD_FONTS = {
  Helvetica: { normal: 'Helvetica', bold: 'Helvetica-Bold', italics: 'Helvetica-Oblique', bolditalics: 'Helvetica-BoldOblique' },
  Courier: { normal: 'Courier', bold: 'Courier-Bold', italics: 'Courier-Oblique', bolditalics: 'Courier-BoldOblique' },
};
const STANDARD_FONT_NAMES = new Set(Object.values(STANDARD_FONTS).flatMap((family) => Object.values(family)));

/**
 * pdfmake (0.3) is one configured object per process. The report needs no URL and no local file: the
 * policies refuse every one but the standard fonts' names (which pdfmake checks like paths), so a
 * document can never make the server read a file or fetch a URL.
 */
pdfmake.setFonts(STANDARD_FONTS);
pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy((path) => STANDARD_FONT_NAMES.has(path));

/** pdfmake's document definition (its types export it only as createPdf's parameter). */
export type DocumentDefinition = Parameters<typeof pdfmake.createPdf>[0];

/** The PDF bytes of a document definition. */
export async function renderPdf(document: DocumentDefinition): Promise<Buffer> {
  return pdfmake.createPdf(document).getBuffer();
}
