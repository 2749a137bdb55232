import { Heading, Text } from "@vestibule/emails";

// Rendered inside a theme to check that the theme works (PATCH /internal/email-themes/{id}).
export function EmailTemplate({ project }: { project: { displayName: string } }) {
  return (
    <>
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Theme preview</Heading>
      <Text>This is how e-mails of {project.displayName} look in this theme.</Text>
    </>
  );
}
