// The tool rows: one row per tool, and every other list in Toolrow is generated from them.
//
// Load-bearing rule: this file has zero imports of any form. It is bundled into the browser UI
// and the server alike, and one import would drag a tool implementation (and its Node-only
// dependencies) into the browser bundle, where the app dies at module load. Neither the type
// checker nor a unit test notices that; `npm run lint` reads this file as text and fails on it.
//
// Edit a row, then run `npm run gen`; `npm run gen:check` fails until you do.

/** Whether the model sees the tool from the first step or must find it with searchTools. */
export type ToolVisibility = 'inline' | 'discoverable';

/**
 * silent: a read that bothers nobody (schema cache, app state).
 * gated: acts on the world or costs something; it goes through the approval ladder.
 * loop: part of the agent loop itself, not a capability over the user's data.
 */
export type ToolTier = 'silent' | 'gated' | 'loop';

/**
 * How a gated tool acts. read: reads table data. propose: emits a chip the user clicks.
 * open: changes the UI now. stage: writes into the staging area. export: writes a file.
 */
export type ToolAccess = 'read' | 'propose' | 'open' | 'stage' | 'export';

/** MCP exposure; the levels nest: readonly ⊂ staged ⊂ full. excluded is never exposed. */
export type McpExposure = 'readonly' | 'staged' | 'full' | 'excluded';

/** What calling the tool can change. Tables themselves change only when the user commits staging. */
export type ToolWrites = 'none' | 'ui' | 'staging' | 'files';

/** The change a stage tool queues; update and delete overwrite or remove rows once committed. */
export type StagedOperation = 'insert' | 'update' | 'delete';

/**
 * What a connection's engine can do that some tools need; an engine declares the ones it has.
 * foreignKeys: tables related by declared foreign keys (PostgreSQL has them, DynamoDB has none).
 */
export type EngineFeature = 'foreignKeys';

/** The languages a row's `words` are given in besides English (its keywords), as BCP 47 tags. */
export type WordLanguage = 'zh-Hans' | 'zh-Hant' | 'ja' | 'ko' | 'es' | 'pt' | 'fr' | 'de';

export interface ToolRow {
  /** camelCase, unique; the name the model calls. */
  readonly name: string;
  /** What the model reads to choose the tool: when to use it and what it returns. */
  readonly description: string;
  /** Extra words searchTools matches on (synonyms a user might type). */
  readonly keywords: readonly string[];
  readonly visibility: ToolVisibility;
  readonly tier: ToolTier;
  /** Required on gated rows, absent elsewhere. */
  readonly access?: ToolAccess;
  /** Propose rows only: the immediate tool this one proposes. */
  readonly twin?: string;
  /** Stage rows only: the change the tool queues in the staging area. */
  readonly stages?: StagedOperation;
  readonly mcp: McpExposure;
  readonly writes: ToolWrites;
  /**
   * What the connection's engine must have for the tool; leave it out when any engine serves it.
   * On a connection whose engine lacks one the tool is in no set (inline, search, MCP) and a call
   * is refused.
   */
  readonly needs?: readonly EngineFeature[];
  /**
   * What users call the tool in other languages (Chinese simplified and traditional, Japanese,
   * Korean, Spanish, Portuguese, French, German): searchTools matches them as it matches keywords.
   * Never sent to the model. Discoverable rows need every language.
   */
  readonly words?: Readonly<Partial<Record<WordLanguage, readonly string[]>>>;
  /**
   * Words of one engine's users (DynamoDB's: item, partition key, GSI …), in any language, keyed
   * by the engine's id: searchTools matches them only on a connection of that engine.
   */
  readonly engineWords?: Readonly<Record<string, readonly string[]>>;
}

export const TOOL_ROWS = [
  // ── The loop ──────────────────────────────────────────────────────────────────────────────
  {
    name: 'searchTools',
    description:
      'Find tools that are not in your current tool list. Give a few words about what you need (for example "export csv" or "foreign keys"). Returns the best matching tools, which you can call from the next step on. At most 3 searches per turn.',
    keywords: ['search', 'find', 'discover', 'tool', 'capability', 'more tools'],
    visibility: 'inline',
    tier: 'loop',
    mcp: 'excluded',
    writes: 'none',
  },

  // ── Silent, inline: the schema cache and app state ───────────────────────────────────────
  {
    name: 'listConnections',
    description:
      'List the database connections the user has configured, with which one is active. Use it when the user asks which databases are available.',
    keywords: [
      'connection',
      'database',
      'server',
      'datasource',
      'which database',
      'connected to',
      'data source',
    ],
    words: {
      'zh-Hans': ['连接', '数据库', '数据源', '哪个数据库'],
      'zh-Hant': ['連線', '資料庫', '資料來源', '哪個資料庫'],
      ja: ['接続', 'データベース', '接続先'],
      ko: ['연결', '데이터베이스', '접속'],
      es: ['conexión', 'conexiones', 'base de datos'],
      pt: ['conexão', 'conexões', 'banco de dados'],
      fr: ['connexion', 'connexions', 'base de données'],
      de: ['Verbindung', 'Verbindungen', 'Datenbank'],
    },
    engineWords: {
      dynamodb: ['AWS profile', 'region', 'AWS account', 'endpoint'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listTables',
    description:
      'List the tables of the active connection with schema, estimated row count and a one-line summary of columns. Start here when you do not know the table names.',
    keywords: ['tables', 'schema', 'relations', 'what data', 'list tables', 'what tables', 'datasets'],
    words: {
      'zh-Hans': ['数据表', '所有表', '表列表', '有哪些表'],
      'zh-Hant': ['資料表', '所有資料表', '資料表清單', '有哪些資料表'],
      ja: ['テーブル', 'テーブル一覧', 'どんなテーブル'],
      ko: ['테이블', '테이블 목록', '어떤 테이블'],
      es: ['tablas', 'listar tablas', 'qué tablas'],
      pt: ['tabelas', 'listar tabelas', 'quais tabelas'],
      fr: ['tables', 'liste des tables', 'quelles tables'],
      de: ['Tabellen', 'Tabellenliste', 'welche Tabellen'],
    },
    engineWords: {
      dynamodb: ['tables in this region', 'list tables'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'describeTable',
    description:
      'Describe one table: its columns with types and nullability, primary key, indexes and foreign keys. Call it before writing SQL or a filter for a table.',
    keywords: [
      'columns',
      'structure',
      'types',
      'primary key',
      'definition',
      'schema of',
      'column types',
      'describe',
      'fields of',
    ],
    words: {
      'zh-Hans': ['表结构', '列', '字段', '字段类型', '主键', '描述表', '模式'],
      'zh-Hant': ['資料表結構', '欄位', '欄位型別', '主鍵', '描述資料表'],
      ja: ['テーブル構造', 'カラム', '列', 'データ型', '主キー', 'スキーマ'],
      ko: ['테이블 구조', '컬럼', '열', '타입', '기본 키', '스키마'],
      es: ['estructura', 'columnas', 'tipos de datos', 'clave primaria', 'esquema', 'describir tabla'],
      pt: ['estrutura', 'colunas', 'tipos de dados', 'chave primária', 'esquema', 'descrever tabela'],
      fr: ['structure', 'colonnes', 'types de données', 'clé primaire', 'schéma', 'décrire la table'],
      de: ['Struktur', 'Spalten', 'Datentypen', 'Primärschlüssel', 'Schema', 'Tabelle beschreiben'],
    },
    engineWords: {
      dynamodb: [
        'partition key',
        'sort key',
        'hash key',
        'range key',
        'GSI',
        'LSI',
        'global secondary index',
        'local secondary index',
        'attributes',
        'key schema',
        'TTL',
        '分区键',
        '排序键',
        '分區鍵',
        '排序鍵',
        'パーティションキー',
        'ソートキー',
        '파티션 키',
        '정렬 키',
        'clave de partición',
        'clave de ordenación',
        'chave de partição',
        'chave de classificação',
        'clé de partition',
        'clé de tri',
        'Partitionsschlüssel',
        'Sortierschlüssel',
      ],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'findColumns',
    description:
      'Search every table for columns whose name contains the given text (for example "email" or "created"). Use it when you know the kind of data but not where it lives.',
    keywords: [
      'column',
      'field',
      'where is',
      'lookup',
      'which column',
      'which field',
      'find column',
      'column named',
    ],
    words: {
      'zh-Hans': ['哪一列', '哪个字段', '查找列', '找字段'],
      'zh-Hant': ['哪個欄位', '尋找欄位', '找欄位'],
      ja: ['どの列', 'カラムを探す', '項目を探す'],
      ko: ['어느 컬럼', '컬럼 찾기', '필드 찾기'],
      es: ['qué columna', 'buscar columna', 'campo'],
      pt: ['qual coluna', 'encontrar coluna', 'campo'],
      fr: ['quelle colonne', 'trouver la colonne', 'champ'],
      de: ['welche Spalte', 'Spalte finden', 'Feld'],
    },
    engineWords: {
      dynamodb: ['which attribute', 'find attribute', 'attribute named'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'sampleValues',
    description:
      'Show typical values of one column, from the schema cache (most common values and bounds). Use it to spell a filter value right, such as a status name.',
    keywords: [
      'values',
      'distinct',
      'examples',
      'enum',
      'categories',
      'typical values',
      'possible values',
      'what values',
      'sample',
    ],
    words: {
      'zh-Hans': ['取值', '示例值', '有哪些值', '不同的值'],
      'zh-Hant': ['範例值', '有哪些值', '不重複的值'],
      ja: ['値の例', 'どんな値', 'サンプル値'],
      ko: ['값 예시', '어떤 값', '샘플 값'],
      es: ['valores', 'valores posibles', 'ejemplos de valores'],
      pt: ['valores', 'valores possíveis', 'exemplos de valores'],
      fr: ['valeurs', 'valeurs possibles', 'exemples de valeurs'],
      de: ['Werte', 'mögliche Werte', 'Beispielwerte'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getTableStats',
    description: 'Get the estimated row count and on-disk size of a table, without scanning it.',
    keywords: [
      'size',
      'row count',
      'estimate',
      'how big',
      'statistics',
      'disk size',
      'storage',
      'table size',
      'how large',
    ],
    words: {
      'zh-Hans': ['表大小', '占用空间', '行数估计', '统计信息'],
      'zh-Hant': ['資料表大小', '佔用空間', '統計資訊'],
      ja: ['テーブルサイズ', '容量', '統計情報', 'サイズ'],
      ko: ['테이블 크기', '용량', '통계'],
      es: ['tamaño de la tabla', 'espacio en disco', 'estadísticas'],
      pt: ['tamanho da tabela', 'espaço em disco', 'estatísticas'],
      fr: ['taille de la table', 'espace disque', 'statistiques'],
      de: ['Tabellengröße', 'Speicherplatz', 'Statistiken'],
    },
    engineWords: {
      dynamodb: ['item count', 'table size in bytes'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'validateQuery',
    description:
      'Check a SELECT without running it: it must be one read-only statement over known tables and columns. Returns ok or the exact problem. Use it before runQuery when unsure.',
    keywords: ['check', 'sql', 'syntax', 'lint', 'parse', 'is this sql valid', 'syntax check', 'validate'],
    words: {
      'zh-Hans': ['检查语法', 'SQL语法', '校验查询', '验证'],
      'zh-Hant': ['檢查語法', '驗證查詢', '語法'],
      ja: ['構文チェック', '文法チェック', '検証'],
      ko: ['문법 검사', '쿼리 검증', '구문'],
      es: ['validar', 'sintaxis', 'comprobar la consulta'],
      pt: ['validar', 'sintaxe', 'verificar a consulta'],
      fr: ['valider', 'syntaxe', 'vérifier la requête'],
      de: ['validieren', 'Syntax', 'Abfrage prüfen'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getActiveView',
    description:
      'Get what the user is looking at: the table of the focused tab with its filter and sort. Use it when the user says "this table" or "these rows".',
    keywords: [
      'current',
      'focused',
      'view',
      'this table',
      'screen',
      'what am i looking at',
      'current tab',
      'on screen',
    ],
    words: {
      'zh-Hans': ['当前视图', '当前表', '正在看'],
      'zh-Hant': ['目前檢視', '目前的資料表', '正在看'],
      ja: ['今見ている', '現在のビュー', '表示中'],
      ko: ['현재 보기', '지금 보고 있는'],
      es: ['vista actual', 'lo que estoy viendo'],
      pt: ['visão atual', 'o que estou vendo'],
      fr: ['vue actuelle', 'ce que je regarde'],
      de: ['aktuelle Ansicht', 'was ich sehe'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getSelection',
    description:
      'Get the rows the user has selected in the focused table, with their primary keys. Use it when the user says "these", "selected" or "the highlighted rows".',
    keywords: ['selected', 'highlighted', 'these rows', 'checked', 'selection', 'the ones i picked'],
    words: {
      'zh-Hans': ['选中的行', '已选择', '选中'],
      'zh-Hant': ['選取的資料列', '已選取', '選取'],
      ja: ['選択した行', '選択中'],
      ko: ['선택한 행', '선택된'],
      es: ['filas seleccionadas', 'selección'],
      pt: ['linhas selecionadas', 'seleção'],
      fr: ['lignes sélectionnées', 'sélection'],
      de: ['ausgewählte Zeilen', 'Auswahl'],
    },
    engineWords: {
      dynamodb: ['selected items'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listOpenTabs',
    description: 'List the tabs open in the app (tables, SQL workbenches, records), marking the focused one.',
    keywords: ['tabs', 'open', 'windows', 'workspace', 'open tabs', 'windows open'],
    words: {
      'zh-Hans': ['标签页', '打开的标签'],
      'zh-Hant': ['分頁', '開啟的分頁'],
      ja: ['タブ', '開いているタブ'],
      ko: ['탭', '열린 탭'],
      es: ['pestañas', 'pestañas abiertas'],
      pt: ['abas', 'abas abertas'],
      fr: ['onglets', 'onglets ouverts'],
      de: ['Tabs', 'offene Tabs', 'Registerkarten'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'excluded',
    writes: 'none',
  },
  {
    name: 'readAttachment',
    description:
      'Read a file the user attached to the chat (CSV, JSON or text), returning its first rows or lines. Use it whenever the user mentions an attached or uploaded file.',
    keywords: [
      'attachment',
      'attached',
      'file',
      'upload',
      'csv',
      'document',
      'uploaded file',
      'the file i sent',
    ],
    words: {
      'zh-Hans': ['附件', '上传的文件', '我发的文件'],
      'zh-Hant': ['附件', '上傳的檔案'],
      ja: ['添付ファイル', 'アップロードしたファイル'],
      ko: ['첨부 파일', '업로드한 파일'],
      es: ['archivo adjunto', 'adjunto'],
      pt: ['anexo', 'arquivo anexado'],
      fr: ['pièce jointe', 'fichier joint'],
      de: ['Anhang', 'angehängte Datei'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'excluded',
    writes: 'none',
  },
  {
    name: 'listQueryHistory',
    description:
      'List recent queries run in this profile, newest first, with time and row count. Use it when the user refers to an earlier query.',
    keywords: ['history', 'recent', 'previous', 'earlier', 'last query', 'query log', 'what did i run'],
    words: {
      'zh-Hans': ['查询历史', '历史记录', '之前的查询'],
      'zh-Hant': ['查詢歷史', '歷史紀錄', '先前的查詢'],
      ja: ['クエリ履歴', '履歴', '前のクエリ'],
      ko: ['쿼리 기록', '이전 쿼리', '기록'],
      es: ['historial', 'consultas anteriores'],
      pt: ['histórico', 'consultas anteriores'],
      fr: ['historique', 'requêtes précédentes'],
      de: ['Verlauf', 'frühere Abfragen', 'Abfrageverlauf'],
    },
    visibility: 'inline',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },

  // ── Silent, discoverable: things users ask for by name ───────────────────────────────────
  {
    name: 'explainQuery',
    description:
      'Show how a SELECT would run, without running it: the PostgreSQL plan (EXPLAIN without ANALYZE), or on DynamoDB how each table is read (GetItem, Query on a key or index, or a Scan of the whole table). Use it when the user asks why a query is slow or how it executes.',
    keywords: [
      'explain',
      'plan',
      'slow',
      'performance',
      'optimize',
      'execution',
      'query plan',
      'takes forever',
      'why slow',
      'speed up',
      'full table scan',
    ],
    words: {
      'zh-Hans': ['执行计划', '查询计划', '为什么慢', '很慢', '性能', '优化'],
      'zh-Hant': ['執行計畫', '查詢計畫', '為什麼慢', '很慢', '效能', '最佳化'],
      ja: ['実行計画', '遅い', 'なぜ遅い', 'パフォーマンス', '最適化'],
      ko: ['실행 계획', '느려', '느린', '성능', '최적화'],
      es: ['plan de ejecución', 'lenta', 'lento', 'rendimiento', 'optimizar'],
      pt: ['plano de execução', 'lenta', 'lento', 'desempenho', 'otimizar'],
      fr: ["plan d'exécution", 'lente', 'lent', 'performance', 'optimiser'],
      de: ['Ausführungsplan', 'langsam', 'Leistung', 'optimieren', 'Abfrageplan'],
    },
    engineWords: {
      dynamodb: [
        'scan or query',
        'full scan',
        'which index it uses',
        'read capacity',
        'consumed capacity',
        'capacity units',
        'RCU',
      ],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getIndexStats',
    description:
      'List the indexes of a table with their columns, size and how often each has been scanned. Use it for questions about indexes or unused indexes.',
    keywords: [
      'index',
      'indexes',
      'indices',
      'scans',
      'unused',
      'performance',
      'index usage',
      'never used',
      'index size',
    ],
    words: {
      'zh-Hans': ['索引', '索引使用情况', '未使用的索引', '没用的索引'],
      'zh-Hant': ['索引', '索引使用情況', '未使用的索引'],
      ja: ['インデックス', '索引', '使われていない'],
      ko: ['인덱스', '사용되지 않는', '미사용'],
      es: ['índices', 'índice', 'sin usar', 'no se usan'],
      pt: ['índices', 'índice', 'não utilizados', 'sem uso'],
      fr: ['index', 'inutilisés', 'utilisation des index'],
      de: ['Indizes', 'Index', 'ungenutzt', 'nicht verwendet'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'describeRelations',
    description:
      'List the foreign keys into and out of a table, showing how tables join. Use it when the user asks how tables relate or what references what.',
    keywords: [
      'foreign key',
      'relation',
      'relationship',
      'references',
      'connected',
      'linked',
      'join',
      'schema graph',
      'relationships',
      'joins between',
    ],
    words: {
      'zh-Hans': ['外键', '关系', '表之间的关系', '关联', '引用'],
      'zh-Hant': ['外鍵', '關聯', '資料表之間的關係', '關係', '參照'],
      ja: ['外部キー', '関係', 'リレーション', '参照'],
      ko: ['외래 키', '관계', '참조'],
      es: ['claves foráneas', 'clave foránea', 'relaciones', 'relación'],
      pt: ['chaves estrangeiras', 'chave estrangeira', 'relacionamentos', 'relações'],
      fr: ['clés étrangères', 'clé étrangère', 'relations'],
      de: ['Fremdschlüssel', 'Beziehungen', 'Relationen', 'Verknüpfungen'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
    needs: ['foreignKeys'],
  },
  {
    name: 'listSavedSpecs',
    description: 'List the saved specs (named queries and views the user saved) with their names and tables.',
    keywords: [
      'saved',
      'spec',
      'specs',
      'bookmark',
      'named query',
      'saved view',
      'saved queries',
      'favorites',
      'bookmarks',
    ],
    words: {
      'zh-Hans': ['保存的查询', '书签', '收藏'],
      'zh-Hant': ['已儲存的查詢', '書籤', '收藏'],
      ja: ['保存したクエリ', 'ブックマーク', 'お気に入り'],
      ko: ['저장된 쿼리', '북마크', '즐겨찾기'],
      es: ['consultas guardadas', 'marcadores', 'favoritos'],
      pt: ['consultas salvas', 'favoritos', 'marcadores'],
      fr: ['requêtes enregistrées', 'favoris', 'signets'],
      de: ['gespeicherte Abfragen', 'Lesezeichen', 'Favoriten'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getSavedSpec',
    description: 'Get one saved spec by name: its SQL or its table, filter and sort.',
    keywords: [
      'saved',
      'spec',
      'bookmark',
      'named query',
      'saved view',
      'open saved',
      'load saved view',
      'saved query called',
    ],
    words: {
      'zh-Hans': ['打开保存的查询', '加载书签', '叫做'],
      'zh-Hant': ['開啟已儲存的查詢', '載入書籤', '叫做'],
      ja: ['保存したクエリを開く', 'という名前の'],
      ko: ['저장된 쿼리 열기', '이라는 이름'],
      es: ['abrir consulta guardada', 'cargar vista guardada', 'llamada'],
      pt: ['abrir consulta salva', 'carregar visão salva', 'chamada'],
      fr: ['ouvrir la requête enregistrée', 'charger la vue', 'nommée'],
      de: ['gespeicherte Abfrage öffnen', 'Ansicht laden', 'namens'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listStagedChanges',
    description:
      'List the changes waiting in the staging area (inserts, updates, deletes not yet committed), with table and row keys. Only the user can commit or discard them.',
    keywords: [
      'staged',
      'staging',
      'pending',
      'changes',
      'uncommitted',
      'review',
      'not committed yet',
      'waiting for commit',
      'queued changes',
    ],
    words: {
      'zh-Hans': ['暂存', '暂存的更改', '待提交', '未提交的修改', '待审核'],
      'zh-Hant': ['暫存', '暫存的變更', '待提交', '未提交的變更'],
      ja: ['ステージング', '保留中の変更', '未コミット', 'コミット待ち'],
      ko: ['스테이징', '대기 중인 변경', '커밋 전', '미반영'],
      es: ['cambios pendientes', 'sin confirmar', 'preparados'],
      pt: ['alterações pendentes', 'não confirmadas', 'preparadas'],
      fr: ['modifications en attente', 'non validées'],
      de: ['ausstehende Änderungen', 'nicht übernommen', 'vorgemerkt'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'diffStagedChanges',
    description: 'Show staged changes as a diff: each row before and after, column by column.',
    keywords: [
      'diff',
      'staged',
      'staging',
      'before after',
      'compare',
      'changes',
      'side by side',
      'old and new values',
    ],
    words: {
      'zh-Hans': ['差异', '对比', '前后对比', '修改前后'],
      'zh-Hant': ['差異', '比較', '變更前後'],
      ja: ['差分', '比較', '変更前後'],
      ko: ['차이', '비교', '변경 전후', '전후 비교'],
      es: ['diferencias', 'comparar', 'antes y después'],
      pt: ['diferença', 'comparar', 'antes e depois'],
      fr: ['différences', 'comparer', 'avant et après'],
      de: ['Unterschiede', 'vergleichen', 'vorher nachher'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getExportStatus',
    description:
      'Get the progress of an export: rows written of the estimate, state, and the file path when done.',
    keywords: [
      'export',
      'progress',
      'status',
      'download',
      'file',
      'is it done',
      'finished',
      'ready yet',
      'job status',
    ],
    words: {
      'zh-Hans': ['导出进度', '导出状态', '导出完成了吗', '进度'],
      'zh-Hant': ['匯出進度', '匯出狀態', '匯出完成', '進度'],
      ja: ['エクスポートの進捗', '進捗', '終わった', '完了'],
      ko: ['내보내기 진행', '진행 상황', '완료'],
      es: ['progreso de la exportación', 'estado', 'terminó'],
      pt: ['progresso da exportação', 'status', 'terminou'],
      fr: ["progression de l'export", 'état', 'terminé'],
      de: ['Exportfortschritt', 'Fortschritt', 'fertig', 'Status'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'listAuditLog',
    description:
      'List recent entries of the audit log: every gated tool call with its decision (asked, approved, denied, auto), who decided and when.',
    keywords: [
      'audit',
      'log',
      'approvals',
      'approved',
      'denied',
      'who',
      'history of actions',
      'permissions',
      'audit trail',
      'who did what',
      'what did the client do',
      'activity log',
      'granted',
      'rejected',
    ],
    words: {
      'zh-Hans': ['审计日志', '审计', '操作记录', '谁批准', '批准', '拒绝'],
      'zh-Hant': ['稽核日誌', '稽核', '操作紀錄', '核准', '拒絕'],
      ja: ['監査ログ', '監査', '操作履歴', '承認', '拒否'],
      ko: ['감사 로그', '감사', '작업 기록', '승인', '거부'],
      es: ['auditoría', 'registro de auditoría', 'quién aprobó', 'aprobado', 'rechazado'],
      pt: ['auditoria', 'log de auditoria', 'quem aprovou', 'aprovado', 'negado'],
      fr: ['audit', "journal d'audit", 'qui a approuvé', 'approuvé', 'refusé'],
      de: ['Audit', 'Protokoll', 'wer hat genehmigt', 'genehmigt', 'abgelehnt'],
    },
    visibility: 'discoverable',
    tier: 'silent',
    mcp: 'readonly',
    writes: 'none',
  },

  // ── Gated reads: they hit the database ───────────────────────────────────────────────────
  {
    name: 'runQuery',
    description:
      'Run one read-only SQL SELECT (joins, GROUP BY, aggregates; on DynamoDB too) and get the rows back, capped. Writes are refused: use the stage tools to change data.',
    keywords: [
      'sql',
      'partiql',
      'select',
      'query',
      'aggregate',
      'group by',
      'join',
      'sum',
      'average',
      'report',

      'totals',
      'breakdown',
      'per month',
    ],
    words: {
      'zh-Hans': ['查询', '运行SQL', '统计', '汇总', '报表'],
      'zh-Hant': ['查詢', '執行SQL', '統計', '彙總', '報表'],
      ja: ['クエリ実行', 'SQLを実行', '集計', 'レポート'],
      ko: ['쿼리 실행', 'SQL 실행', '집계', '보고서'],
      es: ['consulta', 'ejecutar SQL', 'informe', 'agrupar'],
      pt: ['consulta', 'executar SQL', 'relatório', 'agrupar'],
      fr: ['requête', 'exécuter SQL', 'rapport', 'regrouper'],
      de: ['Abfrage', 'SQL ausführen', 'Bericht', 'gruppieren', 'Summe'],
    },
    engineWords: {
      dynamodb: ['PartiQL', 'query items', 'aggregate items'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'read',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'getRow',
    description: 'Fetch one row of a table by its primary key, with every column.',
    keywords: ['row', 'record', 'by id', 'lookup', 'primary key', 'one row', 'record by key', 'fetch by id'],
    words: {
      'zh-Hans': ['按主键查', '某一行', '一条记录'],
      'zh-Hant': ['依主鍵查詢', '單筆資料'],
      ja: ['主キーで取得', '1件取得', 'レコード'],
      ko: ['기본 키로 조회', '한 행', '레코드'],
      es: ['fila por id', 'registro', 'obtener fila'],
      pt: ['linha por id', 'registro', 'obter linha'],
      fr: ['ligne par id', 'enregistrement'],
      de: ['Zeile nach ID', 'Datensatz'],
    },
    engineWords: {
      dynamodb: ['get item', 'item by key', 'GetItem', 'one item'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'read',
    mcp: 'readonly',
    writes: 'none',
  },
  {
    name: 'countRows',
    description:
      'Count the rows of a table that match a structured filter (column, operator, value). Use it for "how many" questions.',
    keywords: ['count', 'how many', 'number of', 'total', 'how many rows', 'number of records'],
    words: {
      'zh-Hans': ['多少', '数量', '总数', '行数', '计数'],
      'zh-Hant': ['多少', '數量', '總數', '筆數'],
      ja: ['何件', '件数', '個数'],
      ko: ['몇 개', '개수', '건수'],
      es: ['cuántos', 'cuántas', 'número de', 'contar'],
      pt: ['quantos', 'quantas', 'número de', 'contar'],
      fr: ['combien', 'nombre de', 'compter'],
      de: ['wie viele', 'Anzahl', 'zählen'],
    },
    engineWords: {
      dynamodb: ['how many items', 'item count', 'count items'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'read',
    mcp: 'readonly',
    writes: 'none',
  },

  // ── Gated UI actions and their propose twins ─────────────────────────────────────────────
  {
    name: 'openTable',
    description:
      'Open a table in a new tab now, optionally with a filter and sort. Prefer proposeOpenTable unless the user asked you to open it.',
    keywords: ['open', 'show', 'display', 'view table', 'browse', 'show me the table'],
    words: {
      'zh-Hans': ['打开表', '查看表', '浏览'],
      'zh-Hant': ['開啟資料表', '瀏覽'],
      ja: ['テーブルを開く', '表示'],
      ko: ['테이블 열기', '보기'],
      es: ['abrir tabla', 'mostrar tabla', 'ver tabla'],
      pt: ['abrir tabela', 'mostrar tabela', 'ver tabela'],
      fr: ['ouvrir la table', 'afficher la table'],
      de: ['Tabelle öffnen', 'Tabelle anzeigen'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeOpenTable',
    description:
      'Offer the user a button that opens a table (optionally filtered and sorted). Nothing happens until the user clicks it. The safe way to show a table.',
    keywords: ['suggest', 'offer', 'open', 'show', 'view table', 'button'],
    words: {
      'zh-Hans': ['按钮', '建议', '打开表', '查看表'],
      'zh-Hant': ['按鈕', '建議', '開啟資料表', '瀏覽'],
      ja: ['ボタン', '提案', 'テーブルを開く', '表示'],
      ko: ['버튼', '제안', '테이블 열기', '보기'],
      es: ['botón', 'sugerir', 'abrir tabla', 'mostrar tabla'],
      pt: ['botão', 'sugerir', 'abrir tabela', 'mostrar tabela'],
      fr: ['bouton', 'suggérer', 'ouvrir la table', 'afficher la table'],
      de: ['Schaltfläche', 'vorschlagen', 'Tabelle öffnen', 'Tabelle anzeigen'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'openTable',
    mcp: 'staged',
    writes: 'ui',
  },
  {
    name: 'openWorkbench',
    description:
      'Open the SQL workbench in a new tab now, prefilled with a query for the user to edit and run.',
    keywords: [
      'sql editor',
      'workbench',
      'console',
      'write sql',
      'edit query',
      'query editor',
      'sql console',
      'scratchpad',
    ],
    words: {
      'zh-Hans': ['SQL编辑器', '查询编辑器', '工作台'],
      'zh-Hant': ['SQL編輯器', '查詢編輯器'],
      ja: ['SQLエディタ', 'クエリエディタ', 'ワークベンチ'],
      ko: ['SQL 편집기', '쿼리 편집기'],
      es: ['editor SQL', 'editor de consultas'],
      pt: ['editor SQL', 'editor de consultas'],
      fr: ['éditeur SQL', 'éditeur de requêtes'],
      de: ['SQL-Editor', 'Abfrageeditor'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeOpenWorkbench',
    description:
      'Offer the user a button that opens the SQL workbench prefilled with a query. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'sql editor', 'workbench', 'button'],
    words: {
      'zh-Hans': ['按钮', '建议', 'SQL编辑器', '查询编辑器'],
      'zh-Hant': ['按鈕', '建議', 'SQL編輯器', '查詢編輯器'],
      ja: ['ボタン', '提案', 'SQLエディタ', 'クエリエディタ'],
      ko: ['버튼', '제안', 'SQL 편집기', '쿼리 편집기'],
      es: ['botón', 'sugerir', 'editor SQL', 'editor de consultas'],
      pt: ['botão', 'sugerir', 'editor SQL', 'editor de consultas'],
      fr: ['bouton', 'suggérer', 'éditeur SQL', 'éditeur de requêtes'],
      de: ['Schaltfläche', 'vorschlagen', 'SQL-Editor', 'Abfrageeditor'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'openWorkbench',
    mcp: 'staged',
    writes: 'ui',
  },
  {
    name: 'setFilter',
    description:
      'Set the filter and sort of the focused table view now (for example orders from last month, newest first). Filters are structured: column, operator, value.',
    keywords: [
      'filter',
      'where',
      'only',
      'sort',
      'sort by',
      'narrow',
      'last month',
      'only show',
      'narrow down',
      'filter by',
    ],
    words: {
      'zh-Hans': ['筛选', '过滤', '只显示', '排序'],
      'zh-Hant': ['篩選', '過濾', '只顯示', '排序'],
      ja: ['絞り込み', 'フィルタ', '並べ替え', 'だけ表示'],
      ko: ['필터', '거르기', '정렬', '만 보기'],
      es: ['filtrar', 'solo mostrar', 'ordenar'],
      pt: ['filtrar', 'mostrar apenas', 'ordenar'],
      fr: ['filtrer', 'afficher seulement', 'trier'],
      de: ['filtern', 'nur anzeigen', 'sortieren'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeSetFilter',
    description:
      'Offer the user a button that applies a filter and sort to a table view. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'filter', 'sort', 'button'],
    words: {
      'zh-Hans': ['按钮', '建议', '筛选', '过滤'],
      'zh-Hant': ['按鈕', '建議', '篩選', '過濾'],
      ja: ['ボタン', '提案', '絞り込み', 'フィルタ'],
      ko: ['버튼', '제안', '필터', '거르기'],
      es: ['botón', 'sugerir', 'filtrar', 'solo mostrar'],
      pt: ['botão', 'sugerir', 'filtrar', 'mostrar apenas'],
      fr: ['bouton', 'suggérer', 'filtrer', 'afficher seulement'],
      de: ['Schaltfläche', 'vorschlagen', 'filtern', 'nur anzeigen'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'setFilter',
    mcp: 'staged',
    writes: 'ui',
  },
  {
    name: 'openRow',
    description: 'Open the record detail of one row (by primary key) in a new tab now.',
    keywords: ['record', 'detail', 'open row', 'show row', 'record view', 'details of'],
    words: {
      'zh-Hans': ['打开记录', '详情'],
      'zh-Hant': ['開啟記錄', '詳細資料'],
      ja: ['詳細', 'レコードを開く'],
      ko: ['상세', '레코드 열기'],
      es: ['detalle', 'abrir registro'],
      pt: ['detalhe', 'abrir registro'],
      fr: ['détail', "ouvrir l'enregistrement"],
      de: ['Details', 'Datensatz öffnen'],
    },
    engineWords: {
      dynamodb: ['open item'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'open',
    mcp: 'full',
    writes: 'ui',
  },
  {
    name: 'proposeOpenRow',
    description:
      'Offer the user a button that opens the record detail of one row. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'record', 'detail', 'button'],
    words: {
      'zh-Hans': ['按钮', '建议', '打开记录', '详情'],
      'zh-Hant': ['按鈕', '建議', '開啟記錄', '詳細資料'],
      ja: ['ボタン', '提案', '詳細', 'レコードを開く'],
      ko: ['버튼', '제안', '상세', '레코드 열기'],
      es: ['botón', 'sugerir', 'detalle', 'abrir registro'],
      pt: ['botão', 'sugerir', 'detalhe', 'abrir registro'],
      fr: ['bouton', 'suggérer', 'détail', "ouvrir l'enregistrement"],
      de: ['Schaltfläche', 'vorschlagen', 'Details', 'Datensatz öffnen'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'propose',
    twin: 'openRow',
    mcp: 'staged',
    writes: 'ui',
  },

  // ── Exports: named by the user, so discoverable ──────────────────────────────────────────
  {
    name: 'startExport',
    description:
      'Export a table (optionally filtered) or a SELECT to a CSV, JSON or NDJSON file in the exports folder. Runs in the background; follow it with getExportStatus.',
    keywords: [
      'export',
      'csv',
      'json',
      'ndjson',
      'download',
      'save as',
      'write to file',
      'file',
      'dump',
      'spreadsheet',
      'excel',
      'save to disk',
      'extract',
    ],
    words: {
      'zh-Hans': ['导出', '下载', '保存为文件', '表格文件', '另存为'],
      'zh-Hant': ['匯出', '下載', '另存為檔案', '試算表'],
      ja: ['エクスポート', '書き出し', '書き出す', 'ダウンロード', 'ファイルに保存', 'スプレッドシート'],
      ko: ['내보내기', '내보내', '다운로드', '파일로 저장', '스프레드시트', '엑셀'],
      es: ['exportar', 'exportación', 'descargar', 'guardar como', 'hoja de cálculo', 'archivo'],
      pt: ['exportar', 'exportação', 'baixar', 'salvar como', 'planilha', 'arquivo'],
      fr: ['exporter', 'export', 'exportation', 'télécharger', 'enregistrer sous', 'tableur', 'fichier'],
      de: ['exportieren', 'Export', 'herunterladen', 'speichern als', 'Tabellenkalkulation', 'Datei'],
    },
    engineWords: {
      dynamodb: ['export items', 'dump the table'],
    },
    visibility: 'discoverable',
    tier: 'gated',
    access: 'export',
    mcp: 'full',
    writes: 'files',
  },
  {
    name: 'proposeExport',
    description:
      'Offer the user a button that starts an export to CSV, JSON or NDJSON. Nothing happens until clicked.',
    keywords: ['suggest', 'offer', 'export', 'csv', 'download', 'button'],
    words: {
      'zh-Hans': ['按钮', '建议', '导出', '下载'],
      'zh-Hant': ['按鈕', '建議', '匯出', '下載'],
      ja: ['ボタン', '提案', 'エクスポート', '書き出し'],
      ko: ['버튼', '제안', '내보내기', '내보내'],
      es: ['botón', 'sugerir', 'exportar', 'exportación'],
      pt: ['botão', 'sugerir', 'exportar', 'exportação'],
      fr: ['bouton', 'suggérer', 'exporter', 'export'],
      de: ['Schaltfläche', 'vorschlagen', 'exportieren', 'Export'],
    },
    visibility: 'discoverable',
    tier: 'gated',
    access: 'propose',
    twin: 'startExport',
    mcp: 'staged',
    writes: 'ui',
  },

  // ── Staging: every write lands here; only the user commits ───────────────────────────────
  {
    name: 'stageInsertRows',
    description:
      'Stage new rows for a table. Nothing is written to the table: the rows wait in the staging area until the user reviews and commits them.',
    keywords: ['insert', 'add', 'create', 'new row', 'append', 'new record', 'add a customer'],
    words: {
      'zh-Hans': ['插入', '新增', '添加', '新建记录'],
      'zh-Hant': ['插入', '新增', '新增一筆'],
      ja: ['追加', '挿入', '新規作成'],
      ko: ['추가', '삽입', '새 행'],
      es: ['insertar', 'agregar', 'añadir', 'nuevo registro'],
      pt: ['inserir', 'adicionar', 'novo registro'],
      fr: ['insérer', 'ajouter', 'nouvel enregistrement'],
      de: ['einfügen', 'hinzufügen', 'neuer Datensatz', 'anlegen'],
    },
    engineWords: {
      dynamodb: ['put item', 'new item'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'stage',
    stages: 'insert',
    mcp: 'staged',
    writes: 'staging',
  },
  {
    name: 'stageUpdateRows',
    description:
      'Stage changes to existing rows, identified by primary key. Nothing is written to the table until the user reviews and commits.',
    keywords: ['update', 'edit', 'change', 'set', 'modify', 'fix', 'correct', 'rename', 'mark as'],
    words: {
      'zh-Hans': ['更新', '修改', '更改', '改成'],
      'zh-Hant': ['更新', '修改', '變更', '改成'],
      ja: ['更新', '変更', '修正'],
      ko: ['수정', '업데이트', '변경'],
      es: ['actualizar', 'modificar', 'cambiar', 'corregir'],
      pt: ['atualizar', 'modificar', 'alterar', 'corrigir'],
      fr: ['mettre à jour', 'modifier', 'changer', 'corriger'],
      de: ['aktualisieren', 'ändern', 'bearbeiten', 'korrigieren'],
    },
    engineWords: {
      dynamodb: ['update item', 'set attribute'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'stage',
    stages: 'update',
    mcp: 'staged',
    writes: 'staging',
  },
  {
    name: 'stageDeleteRows',
    description:
      'Stage the deletion of rows, identified by primary key. Nothing is deleted until the user reviews and commits.',
    keywords: ['delete', 'remove', 'drop rows', 'erase', 'get rid of'],
    words: {
      'zh-Hans': ['删除', '删掉', '移除'],
      'zh-Hant': ['刪除', '移除'],
      ja: ['削除', '消して'],
      ko: ['삭제', '지워'],
      es: ['borrar', 'eliminar', 'quitar'],
      pt: ['apagar', 'excluir', 'remover'],
      fr: ['supprimer', 'effacer'],
      de: ['löschen', 'entfernen'],
    },
    engineWords: {
      dynamodb: ['delete item', 'remove item'],
    },
    visibility: 'inline',
    tier: 'gated',
    access: 'stage',
    stages: 'delete',
    mcp: 'staged',
    writes: 'staging',
  },
] as const satisfies readonly ToolRow[];
