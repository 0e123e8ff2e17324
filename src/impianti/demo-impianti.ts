// Demo installations and their file trees, flattened into rows for the seed. Italian names
// with accents and apostrophes on purpose: they exercise the case+accent-insensitive order.
import type { NewImpiantoFile } from './impianto-file-writer.js';

/** A folder has `children` (possibly none); a file has none. */
export interface DemoNode {
  readonly nome: string;
  readonly children?: readonly DemoNode[];
}

export interface DemoImpianto {
  readonly nome: string;
  /** Absent: the impianto has no files at all. */
  readonly root?: DemoNode;
}

const folder = (nome: string, ...children: DemoNode[]): DemoNode => ({ nome, children });
const file = (nome: string): DemoNode => ({ nome });

export const demoImpianti: readonly DemoImpianto[] = [
  {
    nome: 'Centrale termica - Via Roma 12, Milano',
    root: folder('Documentazione',
      folder('Certificazioni', file('Dichiarazione di conformità.pdf'), file('Certificato prevenzione incendi.pdf'), file('Attestato di prestazione energetica.pdf')),
      folder('Manutenzione', file('Rapporto di controllo 2024.pdf'), file('Rapporto di controllo 2025.pdf'), file('Registro interventi.xlsx')),
      folder('Progetto', file('Schema unifilare.dwg'), file('Planimetria centrale termica.dwg'), file('Relazione tecnica.docx')),
      file("Libretto d'impianto.pdf"), file('Élenco componenti.xlsx'), file('foto caldaia.jpg'), file('Analisi combustione.pdf')),
  },
  {
    nome: 'Cabina elettrica MT/BT - Stabilimento di Brescia',
    root: folder('Documentazione',
      folder('Certificazioni', file('Dichiarazione di conformità.pdf'), file('Denuncia impianto di terra.pdf')),
      folder('Manutenzione', folder('2024', file('Verbale verifica biennale.pdf')), folder('2025'), file('Piano di manutenzione.pdf')),
      folder('Verifiche periodiche', file('Verifica DPR 462-01.pdf')),
      file('Schema unifilare.dwg'), file("Libretto d'impianto.pdf"), file('àrea di rispetto.pdf'), file('Manuale trasformatore.pdf')),
  },
  { nome: 'Impianto fotovoltaico - Cascina San Giorgio, Lodi', root: file('Scheda tecnica impianto fotovoltaico.pdf') },
  { nome: 'Impianto antincendio - Magazzino Interporto Bologna' },
  {
    nome: 'Impianto di climatizzazione - Uffici Corso Francia, Torino',
    root: folder('Documentazione',
      folder('Manutenzione', file('Registro F-gas.pdf'), file('Controllo perdite 2025.pdf')),
      folder('Àrea tecnica'), folder('certificazioni', file('Dichiarazione di conformità.pdf')),
      file('Schema idraulico.dwg'), file('Libretto di uso e manutenzione.pdf'), file('Zona uffici - planimetria.pdf')),
  },
];

/**
 * Rows for `impianto_file` with explicit ids (first `firstId`), parents before children.
 * Dates are fixed, not "now", so the seed gives the same data on every run.
 */
export function flattenDemoTree(root: DemoNode, impiantoId: number, firstId: number): NewImpiantoFile[] {
  const rows: NewImpiantoFile[] = [];
  const visit = (node: DemoNode, folderId: number | null): void => {
    const id = firstId + rows.length;
    const created = new Date(Date.UTC(2023, 0, 10, 8, 30) + (impiantoId * 97 + rows.length) * 36 * 3_600_000);
    const updated = new Date(created.getTime() + ((id * 7919) % 240) * 3_600_000 + 123);
    const isFolder = node.children !== undefined;
    const extension = /\.[a-z0-9]+$/i.exec(node.nome)?.[0] ?? '';
    rows.push({
      id, nome: node.nome, isFolder, folderId, impiantoId, dataCreazione: created, dataAggiornamento: updated,
      percorsoStorage: isFolder ? null : `archivio/impianti/${String(impiantoId).padStart(4, '0')}/f${String(id).padStart(6, '0')}${extension.toLowerCase()}`,
    });
    for (const child of node.children ?? []) visit(child, id);
  };
  visit(root, null);
  return rows;
}
